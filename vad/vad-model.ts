/**
 * Finding and vetting the Silero VAD model. The VAD runs in the API process, and sherpa-onnx treats a bad
 * model file badly: a missing file silently detects nothing, a truncated one aborts the process, a valid
 * ONNX file that is not Silero exits it. So before first use a file must exist, be a complete ONNX model,
 * and either carry a digest the catalog knows or survive a trial load in a throw-away child process.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { errors } from '../errors/catalogue.ts'
import { VAD_CATALOG } from './catalog.ts'
import { sherpaPackagePath } from './native.ts'
import { OnnxFileError, readOnnxFile } from './onnx-file.ts'

/** Catalog VAD models, in the order an unconfigured install looks for them. */
export const VAD_MODEL_IDS = ['silero-vad', 'silero-vad-v6.2', 'silero-vad-v5']

export interface VadModelLocation {
  /** Absolute path of the model file. */
  file: string
  /** Catalog id when it came from the catalog, else null. */
  catalogId: string | null
}

export interface ResolveVadModelOptions {
  /** Config `vad.model` (a path), or null. */
  configured: string | null
  modelsDir: string
  /** Used when nothing else is found (the model dictum ships in assets/silero-vad). */
  fallback?: string
}

function catalogFile(id: string): string | null {
  const entry = VAD_CATALOG.find((candidate) => candidate.id === id)
  return entry ? entry.hints.model : null
}

async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => null))?.isFile() ?? false
}

/** Config `vad.model`, else the first installed catalog VAD model, else the fallback; throws when none. */
export async function resolveVadModel(options: ResolveVadModelOptions): Promise<VadModelLocation> {
  if (options.configured !== null) return { file: path.resolve(options.configured), catalogId: null }
  for (const id of VAD_MODEL_IDS) {
    const name = catalogFile(id)
    const file = name === null ? null : path.join(options.modelsDir, id, name)
    if (file !== null && (await isFile(file))) return { file, catalogId: id }
  }
  if (options.fallback !== undefined && (await isFile(options.fallback))) {
    return { file: path.resolve(options.fallback), catalogId: null }
  }
  const fix = `dictum models pull ${VAD_MODEL_IDS[0]}`
  throw errors.MODEL_NOT_INSTALLED(`${VAD_MODEL_IDS[0]} (the voice activity detector). Fix: ${fix}`, {
    extra: { fix },
  })
}

/** SHA-256 digests of the Silero files the catalog lists (single-file downloads: the file's own digest). */
export function knownVadDigests(): Set<string> {
  return new Set(
    VAD_CATALOG.flatMap((entry) => (entry.archive === 'onnx' && entry.sha256 ? [entry.sha256] : [])),
  )
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

const TRIAL = `
const { Vad } = require(process.argv[1])
const vad = new Vad({ sileroVad: { model: process.argv[2], threshold: 0.5, minSilenceDuration: 0.5,
  minSpeechDuration: 0.25, maxSpeechDuration: 20, windowSize: 512 }, sampleRate: 16000, numThreads: 1,
  provider: 'cpu', debug: 0 }, 5)
const noise = new Float32Array(512)
for (let i = 0; i < 64; i++) { for (let j = 0; j < 512; j++) noise[j] = Math.sin(i * 512 + j) * 0.1; vad.acceptWaveform(noise) }
process.exit(0)
`

/** Loads the model once in a child process: exit 0 means the runtime accepts it. */
async function trialLoad(file: string): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', TRIAL, sherpaPackagePath(), file], {
      stdio: ['ignore', 'ignore', 'ignore'],
    })
    child.once('error', (error) => resolve(error.message))
    child.once('exit', (code, signal) => {
      resolve(code === 0 ? null : `the runtime could not load it (${signal ?? `exit code ${code}`})`)
    })
  })
}

/** Throws MODEL_INVALID unless `location` is safe to hand to the native VAD in this process. */
export async function verifyVadModel(location: VadModelLocation): Promise<void> {
  const name = location.catalogId ?? `vad.model (${path.basename(location.file)})`
  const fix = location.catalogId ? `dictum models pull ${location.catalogId}` : 'Check the vad.model path.'
  const invalid = (problem: string) =>
    errors.MODEL_INVALID(`${name}: ${problem}. Fix: ${fix}`, { extra: { fix } })
  const info = await stat(location.file).catch(() => null)
  if (!info?.isFile()) throw invalid('the file is missing')
  try {
    await readOnnxFile(location.file)
  } catch (error) {
    if (error instanceof OnnxFileError) throw invalid(error.message)
    throw error
  }
  if (knownVadDigests().has(await sha256Of(location.file))) return
  const problem = await trialLoad(location.file)
  if (problem !== null) throw invalid(problem)
}
