/** The shared speech clips with their reference transcripts, and pocketsphinx's command line on them. */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { DEFAULT_MODEL_DIR } from '../../../engines/pocketsphinx/options.ts'
import { AudioDecoder } from '../../../kernel/audio/index.ts'
import { audioFixturesDir } from '../../helpers/fixtures.ts'

export { audioFixturesDir }

export interface Clip {
  file: string
  path: string
  reference: string
}

export function referenceClips(): Clip[] {
  const lines = readFileSync(path.join(audioFixturesDir, 'refs.tsv'), 'utf8').trim().split('\n').slice(1)
  return lines.map((line) => {
    const [file = '', reference = ''] = line.split('\t')
    return { file, path: path.join(audioFixturesDir, file), reference }
  })
}

/** 16 kHz mono float samples of a clip, through the kernel's decoder. */
export async function readClip(file: string): Promise<Float32Array> {
  const decoder = new AudioDecoder({ maxSeconds: 3600 })
  try {
    return await decoder.decode({ kind: 'file', path: file })
  } finally {
    await decoder.close()
  }
}

const run = promisify(execFile)

/** `pocketsphinx_continuous -infile` on one clip: its printed lines joined into one transcript. */
export async function commandLineTranscript(file: string, modelDir = DEFAULT_MODEL_DIR): Promise<string> {
  const { stdout } = await run('pocketsphinx_continuous', [
    '-infile',
    file,
    '-hmm',
    path.join(modelDir, 'en-us'),
    '-lm',
    path.join(modelDir, 'en-us.lm.bin'),
    '-dict',
    path.join(modelDir, 'cmudict-en-us.dict'),
    '-logfn',
    '/dev/null',
  ])
  return stdout
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ')
}
