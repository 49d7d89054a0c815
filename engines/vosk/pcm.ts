import { floatToInt16 } from '../../sdk/plugin.ts'

/**
 * Samples per `vosk_recognizer_accept_waveform` call (40 ms), for whole pieces and live utterances alike:
 * Vosk's endpointer may close an utterance only where a call ends, which moves word times (measured: up to
 * 0.42 s on jfk.wav between 40 ms and 500 ms calls), so a live utterance's final result equals the file
 * transcription only when both cut the audio at the same places.
 */
export const BLOCK_SAMPLES = 640

/** Float samples -> little-endian 16-bit PCM bytes, as `vosk_recognizer_accept_waveform` takes them. */
export function toPcm16(samples: Float32Array): Uint8Array {
  const ints = floatToInt16(samples)
  const out = Buffer.alloc(ints.length * 2)
  for (let i = 0; i < ints.length; i++) out.writeInt16LE(ints[i] as number, i * 2)
  return out
}
