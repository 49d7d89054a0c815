/**
 * The microphone, through ffmpeg: `-f pulse -i default` (PulseAudio and PipeWire), `-f alsa -i default`, or
 * macOS's `-f avfoundation -i :0`, as 16 kHz mono float samples. The ffmpeg child is owned by the generator:
 * it is stopped when the caller stops reading, when `stop` fires, or when the generator is closed.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { endianness } from 'node:os'
import path from 'node:path'
import { CliError } from './cli-error.ts'
import { EXIT } from './io.ts'

export interface CaptureSpec {
  /** An ffmpeg input device format: pulse, alsa, avfoundation… (lavfi: a filter source, read in real time). */
  backend: string
  device: string
}

const DEFAULT_DEVICE: Record<string, string> = { pulse: 'default', alsa: 'default', avfoundation: ':0' }
const MAX_STDERR = 8192
const KILL_GRACE_MS = 2000

/** The backend for `auto`: avfoundation on macOS; PulseAudio when its socket (or PipeWire's) is there; ALSA. */
export function detectBackend(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'avfoundation'
  if (env.PULSE_SERVER) return 'pulse'
  const runtime = env.XDG_RUNTIME_DIR
  if (runtime && existsSync(path.join(runtime, 'pulse', 'native'))) return 'pulse'
  return 'alsa'
}

export function captureSpec(
  backend: string | undefined,
  device: string | undefined,
  env: NodeJS.ProcessEnv,
): CaptureSpec {
  const chosen = backend === undefined || backend === 'auto' ? detectBackend(env) : backend
  return { backend: chosen, device: device ?? DEFAULT_DEVICE[chosen] ?? 'default' }
}

export function captureArgs(spec: CaptureSpec): string[] {
  // A synthetic source is paced like a live one, so Ctrl-C and pauses behave as with a microphone.
  const realtime = spec.backend === 'lavfi' ? ['-re'] : []
  return [
    ...['-nostdin', '-hide_banner', '-loglevel', 'error', ...realtime],
    ...['-f', spec.backend, '-i', spec.device],
    ...['-vn', '-ac', '1', '-ar', '16000', '-f', 'f32le', 'pipe:1'],
  ]
}

/** Samples from the device until `stop` fires (or ffmpeg ends); a device that fails is a CliError (exit 3). */
export async function* captureAudio(
  ffmpeg: string,
  spec: CaptureSpec,
  stop: AbortSignal,
): AsyncGenerator<Float32Array> {
  // Its own process group: Ctrl-C reaches dictum, which stops ffmpeg itself after keeping what was heard.
  const child = spawn(ffmpeg, captureArgs(spec), { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }))
    child.once('close', (code) => resolve({ code }))
  })
  let stderr = ''
  child.stderr?.setEncoding('utf8')
  child.stderr?.on('data', (text: string) => {
    if (stderr.length < MAX_STDERR) stderr += text
  })
  const onStop = () => interrupt(child)
  stop.addEventListener('abort', onStop, { once: true })
  try {
    yield* floats(child)
    const { code, error } = await exited
    if (!stop.aborted && (error || code !== 0)) throw deviceError(spec, error, stderr)
  } finally {
    stop.removeEventListener('abort', onStop)
    await ended(child, exited)
  }
}

async function* floats(child: ChildProcess): AsyncGenerator<Float32Array> {
  let carry = Buffer.alloc(0)
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk
    const whole = bytes.length - (bytes.length % 4)
    carry = Buffer.from(bytes.subarray(whole))
    if (whole === 0) continue
    const samples = new Float32Array(whole / 4)
    const target = Buffer.from(samples.buffer)
    bytes.copy(target, 0, 0, whole)
    if (endianness() === 'BE') target.swap32()
    yield samples
  }
}

function interrupt(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT')
}

/** Waits for ffmpeg to be gone: SIGINT (it closes the device cleanly), then SIGKILL after a grace period. */
async function ended(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  interrupt(child)
  let timer: NodeJS.Timeout | undefined
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL')
      resolve()
    }, KILL_GRACE_MS)
  })
  await Promise.race([exited, grace])
  clearTimeout(timer)
  await exited
}

function deviceError(spec: CaptureSpec, error: Error | undefined, stderr: string): CliError {
  const reason =
    (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT'
      ? 'ffmpeg was not found (install it, or set audio.ffmpegPath).'
      : (error?.message ?? deviceReason(stderr))
  const other = spec.backend === 'pulse' ? 'alsa' : 'pulse'
  return new CliError(
    `Could not record from ${spec.backend} device "${spec.device}": ${reason} ` +
      `Check the microphone, or choose another with --backend ${other} / --device NAME.`,
    EXIT.unavailable,
  )
}

/** ffmpeg's own line about the device (`[alsa @ 0x…] cannot open audio device…`), else its last line. */
export function deviceReason(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
  const tagged = lines.filter((line) => /^\[[^\]]+ @ 0x[0-9a-f]+\]/i.test(line))
  const line = (tagged.at(-1) ?? lines.at(-1) ?? 'ffmpeg stopped without saying why').replace(
    /^\[[^\]]+\]\s*/,
    '',
  )
  const short = line.length > 200 ? `${line.slice(0, 197)}...` : line
  return /[.!?]$/.test(short) ? short : `${short}.`
}
