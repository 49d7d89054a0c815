/**
 * The repo's own test data: real speech clips with their references and licences (`test/fixtures/audio/`,
 * see its README) and the Silero VAD model dictum ships (`assets/silero-vad/`). A missing file fails at once,
 * naming its path, instead of a test waiting on it.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const audioFixturesDir = path.join(repoRoot, 'test/fixtures/audio')
export const vadModelPath = path.join(repoRoot, 'assets/silero-vad/silero_vad.onnx')

for (const required of [path.join(audioFixturesDir, 'refs.tsv'), vadModelPath]) {
  if (!existsSync(required)) throw new Error(`missing test fixture: ${required}`)
}

/** The clips that have a reference transcript (`refs.tsv`), as absolute paths, in its order. */
export function referenceClips(): string[] {
  return readFileSync(path.join(audioFixturesDir, 'refs.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => path.join(audioFixturesDir, line.split('\t')[0] as string))
}
