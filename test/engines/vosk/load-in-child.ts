/**
 * Loads libvosk in this (child) process with the engine's own binding, reports the library version, then
 * tries `vosk_model_new` on the given folder and prints one JSON line: `{"version":…,"modelLoaded":…}`.
 * Tests run it as a child so that a native crash shows as a failed exit instead of killing the test runner.
 * Usage: node --import tsx load-in-child.ts '{"modelDir":"…"}'
 */
import { locateLibrary } from '../../../engines/vosk/library.ts'
import { loadVosk } from '../../../engines/vosk/native.ts'

const input = JSON.parse(process.argv[2] ?? '{}') as { modelDir?: string; libraryPath?: string }
const library = locateLibrary(input.libraryPath)
if (!library.ok) {
  process.stdout.write(`${JSON.stringify({ error: library.reason })}\n`)
  process.exit(2)
}
const { native, version } = await loadVosk(library.path)
native.vosk_set_log_level(-1)
let modelLoaded: boolean | null = null
if (input.modelDir) {
  const model = native.vosk_model_new(input.modelDir)
  modelLoaded = model !== null
  if (model) native.vosk_model_free(model)
}
process.stdout.write(`${JSON.stringify({ library: library.path, ...version, modelLoaded })}\n`)
