/**
 * Runs ffmpeg as a decoder: any input it understands -> 16 kHz mono f32le on stdout, read as a stream.
 * The child is killed on abort, on early return, when the output passes the length limit, and by the
 * owner's `closeAll`.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { endianness } from 'node:os'
import { errors } from '../errors/catalogue.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import { ffmpegReason } from './ffmpeg-stderr.ts'
import type { ResourceSet } from './resource-set.ts'
import { TARGET_SAMPLE_RATE } from './types.ts'

const MAX_STDERR = 8192

export interface FfmpegRun {
  binary: string
  /** A file ffmpeg reads itself, or bytes piped to its stdin. */
  input: { path: string } | { data: Buffer }
  maxSeconds: number
  signal: AbortSignal
  resources: ResourceSet
  logger: PluginLogger
}

type Exit = { code: number | null; signal: NodeJS.Signals | null } | { error: Error }

function ffmpegArgs(url: string): string[] {
  const output = ['-vn', '-sn', '-dn', '-f', 'f32le', '-ac', '1', '-ar', String(TARGET_SAMPLE_RATE), 'pipe:1']
  // Only the one file or pipe dictum hands over: a playlist or concat list cannot make ffmpeg open other
  // files or URLs (detect-format.ts refuses text inputs before this; this holds for anything it missed).
  const input = ['-protocol_whitelist', 'file,pipe', '-i', url]
  return ['-nostdin', '-hide_banner', '-loglevel', 'error', ...input, ...output]
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null
}

/** Starts ffmpeg; resolves once the process exists, or throws when the binary cannot be executed. */
async function start(run: FfmpegRun, url: string) {
  const piped = 'data' in run.input
  const child = spawn(run.binary, ffmpegArgs(url), { stdio: [piped ? 'pipe' : 'ignore', 'pipe', 'pipe'] })
  const exit = new Promise<Exit>((resolve) => {
    child.once('error', (error) => resolve({ error }))
    child.once('close', (code, signal) => resolve({ code, signal }))
  })
  const spawned = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined))
    child.once('error', resolve)
  })
  if (spawned) {
    const code = (spawned as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'EACCES') throw errors.FFMPEG_NOT_FOUND(undefined, { cause: spawned })
    throw errors.INTERNAL(undefined, { cause: spawned })
  }
  let stderr = ''
  child.stderr?.setEncoding('utf8')
  child.stderr?.on('data', (text: string) => {
    if (stderr.length < MAX_STDERR) stderr += text
  })
  if ('data' in run.input) {
    // ffmpeg may exit before reading everything (bad input): that EPIPE is expected, not a crash.
    child.stdin?.on('error', () => {})
    child.stdin?.end(run.input.data)
  }
  return { child, exit, stderr: () => stderr }
}

/** Copies whole little-endian floats out of `bytes` (a Buffer's offset need not be 4-aligned). */
function toFloats(bytes: Buffer): Float32Array {
  const samples = new Float32Array(bytes.length / 4)
  const target = Buffer.from(samples.buffer)
  bytes.copy(target)
  if (endianness() === 'BE') target.swap32()
  return samples
}

async function* readSamples(child: ChildProcess, maxSamples: number, maxSeconds: number) {
  let carry = Buffer.alloc(0)
  let total = 0
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk
    const usable = bytes.length - (bytes.length % 4)
    carry = Buffer.from(bytes.subarray(usable))
    if (usable === 0) continue
    const samples = toFloats(bytes.subarray(0, usable))
    total += samples.length
    if (total > maxSamples) {
      throw errors.AUDIO_TOO_LONG(`it is longer than the limit of ${maxSeconds} seconds.`)
    }
    yield samples
  }
  return total
}

/** Decodes with ffmpeg, yielding 16 kHz mono samples as they arrive. */
export async function* runFfmpeg(run: FfmpegRun): AsyncGenerator<Float32Array> {
  run.signal.throwIfAborted()
  const url = 'path' in run.input ? `file:${run.input.path}` : 'pipe:0'
  const { child, exit, stderr } = await start(run, url)
  const kill = () => {
    if (isRunning(child)) child.kill('SIGKILL')
  }
  const release = run.resources.add(async () => {
    kill()
    // 'close' waits for stdout to end, which never happens while an abandoned consumer stops reading.
    child.stdout?.destroy()
    await exit
  })
  run.signal.addEventListener('abort', kill, { once: true })
  // An abort while the process was starting has already fired its event.
  if (run.signal.aborted) kill()
  try {
    const total = yield* readSamples(child, run.maxSeconds * TARGET_SAMPLE_RATE, run.maxSeconds)
    const result = await exit
    run.signal.throwIfAborted()
    const reason = ffmpegReason(stderr(), 'path' in run.input ? [url, run.input.path] : [url])
    if ('error' in result) throw errors.INTERNAL(undefined, { cause: result.error })
    if (result.code !== 0) {
      run.logger.debug({ code: result.code, signal: result.signal, stderr: stderr() }, 'ffmpeg failed')
      throw errors.AUDIO_DECODE_FAILED(reason ?? `ffmpeg exited with code ${result.code ?? result.signal}.`)
    }
    if (total === 0) throw errors.AUDIO_DECODE_FAILED(reason ?? 'the input contains no audio.')
    if (reason) run.logger.debug({ stderr: stderr() }, 'ffmpeg decoded with warnings')
  } finally {
    run.signal.removeEventListener('abort', kill)
    await release()
  }
}
