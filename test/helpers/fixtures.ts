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

/** A clip of `refs.tsv`: its file name, absolute path and reference transcript. */
export interface ReferenceClip {
  file: string
  path: string
  reference: string
}

/** The clips that have a reference transcript (`refs.tsv`), in its order. */
export function referenceTranscripts(): ReferenceClip[] {
  const lines = readFileSync(path.join(audioFixturesDir, 'refs.tsv'), 'utf8').trim().split('\n').slice(1)
  return lines.map((line) => {
    const [file = '', reference = ''] = line.split('\t')
    return { file, path: path.join(audioFixturesDir, file), reference }
  })
}

/** The clips that have a reference transcript, as absolute paths, in its order. */
export function referenceClips(): string[] {
  return referenceTranscripts().map((clip) => clip.path)
}
