/**
 * Test helpers for the sherpa-onnx engine and the VAD: generated fixture models (random weights, real
 * layouts; written once per generator version into test/fixtures/generated/), the shared recordings, and a
 * folder of fixture models named by catalog id.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export { audioFixturesDir, vadModelPath } from '../../helpers/fixtures.ts'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
export const CLIPS = [
  'jfk.wav',
  'goforward.wav',
  'cards-001.wav',
  'librispeech-1089-134686-0001.wav',
  'librivox-austen-0880.wav',
]

const SCRIPT = path.join(repoRoot, 'scripts/make-fixture-models.py')
const PYTHON = '/usr/bin/python3'

/** Fixture folder → the catalog id it stands in for (file names match the catalog's). */
export const FIXTURE_IDS = {
  'nemo-tdt': 'parakeet-tdt-0.6b-v2',
  zipformer: 'zipformer-small-en',
  whisper: 'whisper-tiny',
  'streaming-zipformer': 'streaming-zipformer-en',
} as const

export type FixtureName = keyof typeof FIXTURE_IDS

/** Removes fixtures of earlier generator versions (never a folder still being written). */
async function pruneOldVersions(parent: string, keep: string): Promise<void> {
  for (const name of await readdir(parent)) {
    if (name.startsWith('sherpa-onnx-') && name !== keep && !name.includes('.tmp-')) {
      await rm(path.join(parent, name), { recursive: true, force: true })
    }
  }
}

/** Generates the fixtures once (per script version); returns their folder, or why they cannot be made. */
export async function fixtureModels(): Promise<{ dir: string } | { skip: string }> {
  const script = await readFile(SCRIPT)
  const version = createHash('sha256').update(script).digest('hex').slice(0, 12)
  const dir = path.join(repoRoot, 'test/fixtures/generated', `sherpa-onnx-${version}`)
  if (existsSync(path.join(dir, '.complete'))) return { dir }
  const check = spawnSync(PYTHON, ['-c', 'import onnx, numpy'], { encoding: 'utf8' })
  if (check.status !== 0) {
    return { skip: `fixture models need ${PYTHON} with python3-onnx (apt-get install -y python3-onnx)` }
  }
  const temp = `${dir}.tmp-${process.pid}-${Date.now()}`
  await mkdir(temp, { recursive: true })
  const made = spawnSync(PYTHON, [SCRIPT, temp], { encoding: 'utf8' })
  if (made.status !== 0) throw new Error(`make-fixture-models.py failed: ${made.stderr}`)
  await writeFile(path.join(temp, '.complete'), version)
  // another test file may have won the race: its copy is identical
  await rename(temp, dir).catch(() => rm(temp, { recursive: true, force: true }))
  await pruneOldVersions(path.dirname(dir), path.basename(dir))
  return { dir }
}

/** A models folder (in `into`) holding copies of the fixtures under their catalog ids. */
export async function fixtureModelsDir(fixtures: string, into: string): Promise<string> {
  for (const [name, id] of Object.entries(FIXTURE_IDS)) {
    await cp(path.join(fixtures, name), path.join(into, id), { recursive: true })
  }
  return into
}

/** Reads a 16-bit PCM mono WAV (the shared clips) as float samples. */
export async function readWav(file: string): Promise<Float32Array> {
  const bytes = await readFile(file)
  let at = 12
  while (at + 8 <= bytes.length) {
    const id = bytes.toString('latin1', at, at + 4)
    const size = bytes.readUInt32LE(at + 4)
    if (id === 'data') {
      const count = Math.floor(Math.min(size, bytes.length - at - 8) / 2)
      const out = new Float32Array(count)
      for (let i = 0; i < count; i++) out[i] = bytes.readInt16LE(at + 8 + 2 * i) / 32768
      return out
    }
    at += 8 + size + (size % 2)
  }
  throw new Error(`no data chunk in ${file}`)
}

export const silentLogger = { debug() {}, info() {}, warn() {}, error() {} }
