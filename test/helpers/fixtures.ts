/**
 * The repo's own test data: real speech clips with their references and licences (`test/fixtures/audio/`,
 * see its README) and the Silero VAD model dictum ships (`assets/silero-vad/`). A missing file fails at once,
 * naming its path, instead of a test waiting on it.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const audioFixturesDir = path.join(repoRoot, 'test/fixtures/audio')
export const vadModelPath = path.join(repoRoot, 'assets/silero-vad/silero_vad.onnx')

for (const required of [path.join(audioFixturesDir, 'refs.tsv'), vadModelPath]) {
  if (!existsSync(required)) throw new Error(`missing test fixture: ${required}`)
}
