/**
 * Keeps a dictation's audio compactly: 16 kHz mono samples, written as they are decoded, come out as FLAC
 * (audio/flac-encoder.ts, in this process). FLAC is lossless, so a replay of the recording
 * (learning/replay.ts) gives the engine the samples the dictation gave it, on the 16-bit grid. On the repo's
 * ten speech clips it is 0.58 of the 16-bit PCM (0.99 of ffmpeg's FLAC of the same samples).
 */
import { FlacEncoder } from './flac-encoder.ts'
import { floatToInt16 } from './pcm-convert.ts'

/** The format of every kept recording (its Content-Type when played back). */
export const RECORDING_FORMAT = { extension: 'flac', contentType: 'audio/flac' } as const

/** One recording being encoded: `write` the samples, then `finish` for the file, or `abort`. */
export class RecordingEncoder {
  #encoder: FlacEncoder | null = new FlacEncoder()

  /** Encodes samples (-1…1; outside is clipped), as they come. */
  write(samples: Float32Array): void {
    if (!this.#encoder || samples.length === 0) return
    this.#encoder.write(floatToInt16(samples))
  }

  /** The FLAC file of everything written. Rejects after `abort`. */
  async finish(): Promise<Buffer> {
    if (!this.#encoder) throw new Error('the recording was aborted')
    const flac = this.#encoder.finish()
    this.#encoder = null
    return flac
  }

  /** Drops what was encoded. Safe after finish. */
  abort(): void {
    this.#encoder = null
  }
}
