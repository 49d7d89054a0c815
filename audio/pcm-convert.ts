/**
 * Interleaved PCM bytes -> mono float samples in [-1, 1) (channels averaged), and float back to 16-bit: as
 * integers for an engine's API, or as the little-endian bytes a WAV file, a socket or a live session carries.
 */
import type { PcmLayout } from './types.ts'

/** Typed-array views read in the platform's byte order; WAV is little-endian. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

type SampleReader = (view: DataView, offset: number) => number

const readers: Record<PcmLayout['sampleFormat'], SampleReader> = {
  u8: (view, offset) => (view.getUint8(offset) - 128) / 128,
  s16: (view, offset) => view.getInt16(offset, true) / 32768,
  s24: (view, offset) =>
    (view.getUint8(offset) | (view.getUint8(offset + 1) << 8) | (view.getInt8(offset + 2) << 16)) / 8388608,
  s32: (view, offset) => view.getInt32(offset, true) / 2147483648,
  f32: (view, offset) => finite(view.getFloat32(offset, true)),
  f64: (view, offset) => finite(view.getFloat64(offset, true)),
}

/** NaN and infinities in float files would poison every later stage; they become silence. */
function finite(value: number): number {
  return Number.isFinite(value) ? value : 0
}

const bytesPerSample: Record<PcmLayout['sampleFormat'], number> = {
  u8: 1,
  s16: 2,
  s24: 3,
  s32: 4,
  f32: 4,
  f64: 8,
}

/** Converts whole frames of `bytes` (its length is a multiple of `blockAlign`) to one mono channel. */
export function pcmToMono(
  bytes: Uint8Array,
  layout: Pick<PcmLayout, 'sampleFormat' | 'channels' | 'blockAlign'>,
) {
  const { channels, blockAlign } = layout
  const read = readers[layout.sampleFormat]
  const step = bytesPerSample[layout.sampleFormat]
  const frames = Math.floor(bytes.length / blockAlign)
  const out = new Float32Array(frames)
  if (channels === 1 && layout.sampleFormat === 's16' && LITTLE_ENDIAN && bytes.byteOffset % 2 === 0) {
    // The common case (16-bit mono, as recorders write it): a typed view is ~3x faster than DataView reads.
    const source = new Int16Array(bytes.buffer, bytes.byteOffset, frames)
    for (let i = 0; i < frames; i++) out[i] = source[i]! / 32768
    return out
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (channels === 1) {
    for (let i = 0; i < frames; i++) out[i] = read(view, i * blockAlign)
    return out
  }
  for (let i = 0; i < frames; i++) {
    let sum = 0
    const base = i * blockAlign
    for (let c = 0; c < channels; c++) sum += read(view, base + c * step)
    out[i] = sum / channels
  }
  return out
}

/** Bytes one sample of `format` occupies. */
export function sampleBytes(format: PcmLayout['sampleFormat']): number {
  return bytesPerSample[format]
}

/**
 * Float samples -> 16-bit integers: scaled by 32768 and rounded, the inverse of how 16-bit audio is decoded
 * (x / 32768), so audio that arrived as 16-bit PCM comes back bit for bit; clipped outside [-1, 1), and a
 * value that is not a number is 0.
 */
export function floatToInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length)
  for (let i = 0; i < samples.length; i++) {
    const scaled = Math.round((samples[i] as number) * 32768)
    out[i] = scaled > 32767 ? 32767 : scaled < -32768 ? -32768 : Number.isNaN(scaled) ? 0 : scaled
  }
  return out
}

/**
 * Float samples -> little-endian 16-bit PCM bytes (floatToInt16's integers, so 16-bit audio comes back bit for
 * bit): what a WAV file's data, a live session's `append` and an engine taking PCM bytes carry.
 */
export function floatToPcm16(samples: Float32Array): Buffer {
  return int16Bytes(floatToInt16(samples))
}

/**
 * 16-bit integers -> their little-endian bytes, whatever this machine's order: a view of the same memory
 * where the platform is little-endian (the bytes change with the integers), else a copy.
 */
export function int16Bytes(ints: Int16Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(ints.buffer, ints.byteOffset, ints.byteLength)
  const out = Buffer.alloc(ints.length * 2)
  for (let i = 0; i < ints.length; i++) out.writeInt16LE(ints[i] as number, i * 2)
  return out
}
