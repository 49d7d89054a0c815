/** The shared speech clips with their reference transcripts, and pocketsphinx's command line on them. */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { AudioDecoder } from '../../../audio/index.ts'
import { DEFAULT_MODEL_DIR } from '../../../engines/pocketsphinx/options.ts'
import { audioFixturesDir, type ReferenceClip, referenceTranscripts } from '../../helpers/fixtures.ts'

export { audioFixturesDir }

export type Clip = ReferenceClip
export { referenceTranscripts as referenceClips }

/** The six reference clips of 3.3 s or less: 14 of the corpus's 47 s. */
export const SHORT_CLIPS = [
  'librispeech-1089-134686-0001.wav',
  'goforward.wav',
  'librivox-austen-0880.wav',
  'cards-001.wav',
  'cards-002.wav',
  'cards-003.wav',
]

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

/** `pocketsphinx_continuous -infile` on one clip, run now: its printed lines joined into one transcript. */
export async function runCommandLine(file: string, modelDir = DEFAULT_MODEL_DIR): Promise<string> {
  const { stdout } = await run('pocketsphinx_continuous', commandLineArgs(file, modelDir))
  return stdout
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ')
}

/**
 * What `runCommandLine` gives for a clip, computed once. The command line takes ~0.4 s per second of audio
 * and several test files compare with it on the same clips, so its output is kept in
 * test/fixtures/generated/ under a key made of everything that decides it: the clip's bytes, the arguments,
 * and the size and time of the program and model files (a new pocketsphinx or model computes it again).
 * Written by rename, so a test running beside it reads a whole file or none.
 */
export async function commandLineTranscript(file: string, modelDir = DEFAULT_MODEL_DIR): Promise<string> {
  const cached = path.join(cliCacheDir, `${await cliCacheKey(file, modelDir)}.txt`)
  if (existsSync(cached)) return readFileSync(cached, 'utf8')
  const transcript = await runCommandLine(file, modelDir)
  mkdirSync(cliCacheDir, { recursive: true })
  const partial = `${cached}.${process.pid}.tmp`
  writeFileSync(partial, transcript)
  renameSync(partial, cached)
  return transcript
}

function commandLineArgs(file: string, modelDir: string): string[] {
  return [
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
  ]
}

const cliCacheDir = path.resolve(import.meta.dirname, '../../fixtures/generated/pocketsphinx-cli')

async function cliCacheKey(file: string, modelDir: string): Promise<string> {
  const args = commandLineArgs(file, modelDir)
  const { stdout: program } = await run('sh', ['-c', 'command -v pocketsphinx_continuous'])
  const hash = createHash('sha256').update(readFileSync(file)).update(JSON.stringify(args))
  for (const dependency of [program.trim(), args[3]!, args[5]!, args[7]!]) {
    const stat = statSync(dependency)
    hash.update(`${dependency}:${stat.size}:${stat.mtimeMs}`)
  }
  return hash.digest('hex').slice(0, 32)
}
