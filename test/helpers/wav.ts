/**
 * A tiny WAV writer for tests: every sample format the decoder supports, WAVE_FORMAT_EXTENSIBLE, extra
 * chunks (odd sizes are padded) and overridden size fields (streaming writers, truncation).
 */

import path from 'node:path'
import { fileURLToPath } from 'node:url'

export { audioFixturesDir } from './fixtures.ts'

export type WavSampleFormat = 'u8' | 's16' | 's24' | 's32' | 'f32' | 'f64'

export interface WavChunk {
  id: string
  body: Buffer
}

export interface WavSpec {
  sampleRate: number
  format: WavSampleFormat
  extensible?: boolean
  /** Chunks written before `fmt `, between `fmt ` and `data`, and after `data`. */
  before?: WavChunk[]
  between?: WavChunk[]
  after?: WavChunk[]
  /** Value written in the data chunk's size field instead of the real size (0, 0xFFFFFFFF…). */
  dataSizeField?: number
  /** Skip the pad byte after odd-sized chunks (a common writer bug). */
  omitPadding?: boolean
  /** 'RF64' writes an RF64 file with a ds64 chunk. */
  container?: 'RIFF' | 'RF64'
}

const BYTES: Record<WavSampleFormat, number> = { u8: 1, s16: 2, s24: 3, s32: 4, f32: 4, f64: 8 }

/** The repository root, found from this file's location. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
/** The shared folder with real speech recordings. */

function clampInt(value: number, scale: number): number {
  return Math.max(-scale, Math.min(scale - 1, Math.round(value * scale)))
}

function writeSample(buffer: Buffer, offset: number, format: WavSampleFormat, value: number): void {
  if (format === 'u8') buffer.writeUInt8(clampInt(value, 128) + 128, offset)
  else if (format === 's16') buffer.writeInt16LE(clampInt(value, 32768), offset)
  else if (format === 's24') buffer.writeIntLE(clampInt(value, 8388608), offset, 3)
  else if (format === 's32') buffer.writeInt32LE(clampInt(value, 2147483648), offset)
  else if (format === 'f32') buffer.writeFloatLE(value, offset)
  else buffer.writeDoubleLE(value, offset)
}

/** Interleaves `channels` (equal lengths) into PCM bytes of `format`. */
export function encodePcm(channels: Float32Array[], format: WavSampleFormat): Buffer {
  const frames = channels[0]?.length ?? 0
  const step = BYTES[format]
  const out = Buffer.alloc(frames * channels.length * step)
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < channels.length; c++) {
      writeSample(out, (i * channels.length + c) * step, format, channels[c]![i]!)
    }
  }
  return out
}

function chunk(id: string, body: Buffer, omitPadding = false, sizeField = body.length): Buffer {
  const header = Buffer.alloc(8)
  header.write(id, 0, 'latin1')
  header.writeUInt32LE(sizeField, 4)
  const pad = body.length % 2 === 1 && !omitPadding ? Buffer.alloc(1) : Buffer.alloc(0)
  return Buffer.concat([header, body, pad])
}

function fmtBody(spec: WavSpec, channels: number): Buffer {
  const bytes = BYTES[spec.format]
  const float = spec.format === 'f32' || spec.format === 'f64'
  const body = Buffer.alloc(spec.extensible ? 40 : 16)
  body.writeUInt16LE(spec.extensible ? 0xfffe : float ? 3 : 1, 0)
  body.writeUInt16LE(channels, 2)
  body.writeUInt32LE(spec.sampleRate, 4)
  body.writeUInt32LE(spec.sampleRate * channels * bytes, 8)
  body.writeUInt16LE(channels * bytes, 12)
  body.writeUInt16LE(bytes * 8, 14)
  if (spec.extensible) {
    body.writeUInt16LE(22, 16)
    body.writeUInt16LE(bytes * 8, 18)
    body.writeUInt32LE(channels === 2 ? 3 : 0, 20)
    body.writeUInt16LE(float ? 3 : 1, 24)
    Buffer.from('000000001000800000aa00389b71', 'hex').copy(body, 26)
  }
  return body
}

/** A complete WAV file holding `channels` (one Float32Array per channel, values in [-1, 1]). */
export function encodeWav(channels: Float32Array[], spec: WavSpec): Buffer {
  const pad = spec.omitPadding ?? false
  const data = encodePcm(channels, spec.format)
  const rf64 = spec.container === 'RF64'
  const ds64 = Buffer.alloc(28)
  ds64.writeBigUInt64LE(BigInt(data.length), 8)
  const body = Buffer.concat([
    ...(rf64 ? [chunk('ds64', ds64)] : []),
    ...(spec.before ?? []).map((c) => chunk(c.id, c.body, pad)),
    chunk('fmt ', fmtBody(spec, channels.length)),
    ...(spec.between ?? []).map((c) => chunk(c.id, c.body, pad)),
    chunk('data', data, pad, rf64 ? 0xffffffff : (spec.dataSizeField ?? data.length)),
    ...(spec.after ?? []).map((c) => chunk(c.id, c.body, pad)),
  ])
  const header = Buffer.alloc(12)
  header.write(rf64 ? 'RF64' : 'RIFF', 0, 'latin1')
  header.writeUInt32LE(rf64 ? 0xffffffff : body.length + 4, 4)
  header.write('WAVE', 8, 'latin1')
  return Buffer.concat([header, body])
}

/** A sine tone. */
export function tone(frequency: number, sampleRate: number, frames: number, amplitude = 0.5): Float32Array {
  const out = new Float32Array(frames)
  for (let i = 0; i < frames; i++) out[i] = amplitude * Math.sin((2 * Math.PI * frequency * i) / sampleRate)
  return out
}

/** Root mean square of `samples[from..to)`. */
export function rms(samples: Float32Array, from = 0, to = samples.length): number {
  let sum = 0
  for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!
  return Math.sqrt(sum / Math.max(1, to - from))
}

/** Pearson correlation of two signals over their common length. */
export function correlation(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length)
  let ma = 0
  let mb = 0
  for (let i = 0; i < n; i++) {
    ma += a[i]!
    mb += b[i]!
  }
  ma /= n
  mb /= n
  let sab = 0
  let saa = 0
  let sbb = 0
  for (let i = 0; i < n; i++) {
    const x = a[i]! - ma
    const y = b[i]! - mb
    sab += x * y
    saa += x * x
    sbb += y * y
  }
  return sab / Math.sqrt(saa * sbb)
}

/** Frequency estimated from upward zero crossings over `samples[from..to)`. */
export function zeroCrossingFrequency(
  samples: Float32Array,
  sampleRate: number,
  from = 0,
  to = samples.length,
) {
  let first = -1
  let last = -1
  let count = 0
  for (let i = from + 1; i < to; i++) {
    if (samples[i - 1]! < 0 && samples[i]! >= 0) {
      if (first < 0) first = i
      else count++
      last = i
    }
  }
  return count > 0 ? (count * sampleRate) / (last - first) : 0
}

/** True when both signals have the same length and bit-identical samples (fast, unlike a deep compare). */
export function sameSamples(a: Float32Array, b: Float32Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  )
}

/**
 * Speech with pauses, as long as a test needs and no longer: these clips' samples (16 kHz mono) as one 16-bit
 * WAV, with `pauseSeconds` of silence before, between and after them. A recognizer's cost grows with the
 * audio, so tests about segments and cues use a few short clips instead of a minute-long recording.
 */
export function clipsWithPauses(clips: Float32Array[], pauseSeconds: number, sampleRate = 16000): Buffer {
  const pause = new Float32Array(Math.round(pauseSeconds * sampleRate))
  const parts = [pause, ...clips.flatMap((clip) => [clip, pause])]
  const joined = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0))
  let at = 0
  for (const part of parts) {
    joined.set(part, at)
    at += part.length
  }
  return encodeWav([joined], { sampleRate, format: 's16' })
}
