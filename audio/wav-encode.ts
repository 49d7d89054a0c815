/** 16 kHz mono float samples -> a 16-bit PCM WAV file (uploads to transcription servers, recorded dictation). */
import { floatToPcm16 } from './pcm-convert.ts'

const SAMPLE_RATE = 16000
const HEADER_BYTES = 44

/** Audio that arrived as 16-bit PCM is uploaded bit for bit as it came (floatToPcm16). */
export function encodeWav16(samples: Float32Array, sampleRate = SAMPLE_RATE): Buffer {
  const dataBytes = samples.length * 2
  const out = Buffer.alloc(HEADER_BYTES + dataBytes)
  writeHeader(out, dataBytes, sampleRate)
  out.set(floatToPcm16(samples), HEADER_BYTES)
  return out
}

/** Mono 16-bit little-endian PCM bytes as they are -> a WAV file (what a live session or a socket received). */
export function pcm16Wav(pcm: Uint8Array, sampleRate = SAMPLE_RATE): Buffer {
  const out = Buffer.alloc(HEADER_BYTES + pcm.length)
  writeHeader(out, pcm.length, sampleRate)
  out.set(pcm, HEADER_BYTES)
  return out
}

/** The 44-byte header of mono 16-bit PCM, written at the start of `out`. */
function writeHeader(out: Buffer, dataBytes: number, sampleRate: number): void {
  out.write('RIFF', 0, 'latin1')
  out.writeUInt32LE(36 + dataBytes, 4)
  out.write('WAVE', 8, 'latin1')
  out.write('fmt ', 12, 'latin1')
  out.writeUInt32LE(16, 16)
  out.writeUInt16LE(1, 20)
  out.writeUInt16LE(1, 22)
  out.writeUInt32LE(sampleRate, 24)
  out.writeUInt32LE(sampleRate * 2, 28)
  out.writeUInt16LE(2, 32)
  out.writeUInt16LE(16, 34)
  out.write('data', 36, 'latin1')
  out.writeUInt32LE(dataBytes, 40)
}
