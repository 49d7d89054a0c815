/**
 * The last samples fed to the VAD, so a piece can be given the audio just before its detected start
 * (OpenAI's `prefix_padding_ms`). A fixed ring: memory is bounded whatever the recording's length.
 */
import { SAMPLE_RATE, type SpeechPiece } from './vad-run.ts'

export class RecentSamples {
  readonly #ring: Float32Array
  /** Samples fed in all. */
  #fed = 0
  /** Where the last padded piece ended: padding never reaches into it. */
  #lastEnd = 0

  constructor(capacity: number) {
    this.#ring = new Float32Array(capacity)
  }

  push(window: Float32Array): void {
    for (let i = 0; i < window.length; i++)
      this.#ring[(this.#fed + i) % this.#ring.length] = window[i] as number
    this.#fed += window.length
  }

  /** The piece with up to `padding` samples before it, as far as the ring still holds them. */
  pad(piece: SpeechPiece, padding: number): SpeechPiece {
    const start = Math.round(piece.startSeconds * SAMPLE_RATE)
    const from = Math.max(start - padding, this.#lastEnd, this.#fed - this.#ring.length, 0)
    this.#lastEnd = start + piece.samples.length
    if (from >= start) return piece
    const samples = new Float32Array(start - from + piece.samples.length)
    for (let at = from; at < start; at++) samples[at - from] = this.#ring[at % this.#ring.length] as number
    samples.set(piece.samples, start - from)
    return { samples, startSeconds: from / SAMPLE_RATE }
  }
}
