/**
 * One pass of the Silero VAD over one recording: feeds windows, collects speech segments, and cuts speech
 * that runs on past the limit at its quietest point, so every piece is at most `maxSamples` long and the
 * native detector never holds more than about one piece (sherpa-onnx copies the open segment on every
 * window, so an unbounded segment would cost quadratic time and unbounded memory).
 */
import type { NativeVad } from './native.ts'
import { quietestCut } from './quietest-cut.ts'

export const SAMPLE_RATE = 16000
export const WINDOW = 512

/** Cuts avoid leaving a piece shorter than this (a word fragment) when there is room. */
const MIN_PIECE = SAMPLE_RATE / 4

export interface SpeechPiece {
  /** 16 kHz mono samples of this piece. */
  samples: Float32Array
  /** Where the piece starts in the whole recording. */
  startSeconds: number
}

interface Span {
  samples: Float32Array
  start: number
}

function concat(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}

export class VadRun {
  readonly #vad: NativeVad
  readonly #maxSamples: number
  readonly #leadIn: number
  #fed = 0
  #floor = 0
  #runStart: number | null = null
  #carry: Span | null = null

  constructor(vad: NativeVad, maxSamples: number, minSpeechSamples: number) {
    this.#vad = vad
    this.#maxSamples = maxSamples
    // sherpa-onnx starts a segment two windows plus the minimum speech length before the first speech window
    this.#leadIn = 2 * WINDOW + minSpeechSamples
  }

  /** Feeds one window (any length; the detector keeps a remainder) and returns the pieces it completed. */
  accept(window: Float32Array): SpeechPiece[] {
    this.#vad.acceptWaveform(window)
    this.#fed += window.length
    const pieces = this.#drain(true)
    if (!this.#vad.isDetected()) {
      this.#runStart = null
      return pieces
    }
    this.#runStart ??= Math.max(this.#floor, this.#fed - this.#leadIn)
    const open = this.#fed - this.#runStart + (this.#carry?.samples.length ?? 0)
    if (open + WINDOW > this.#maxSamples) {
      this.#vad.flush()
      this.#floor = this.#fed
      this.#runStart = null
      pieces.push(...this.#drain(false))
    }
    return pieces
  }

  /** Ends the recording: the open segment and any carried tail become pieces. */
  finish(): SpeechPiece[] {
    this.#vad.flush()
    const pieces = this.#drain(true)
    if (this.#carry) pieces.push(this.#piece(this.#carry.samples, this.#carry.start))
    this.#carry = null
    return pieces
  }

  /** `natural`: the segment ended at a pause; otherwise it was flushed while speech goes on. */
  #drain(natural: boolean): SpeechPiece[] {
    const pieces: SpeechPiece[] = []
    while (!this.#vad.isEmpty()) {
      const segment = this.#vad.front(false)
      this.#vad.pop()
      pieces.push(...this.#place({ samples: segment.samples, start: segment.start }, natural))
    }
    return pieces
  }

  #place(segment: Span, natural: boolean): SpeechPiece[] {
    const pieces: SpeechPiece[] = []
    let { samples, start } = segment
    if (this.#carry) {
      if (this.#carry.start + this.#carry.samples.length === start) {
        samples = concat(this.#carry.samples, samples)
        start = this.#carry.start
      } else {
        pieces.push(this.#piece(this.#carry.samples, this.#carry.start))
      }
      this.#carry = null
    }
    let split = false
    while (samples.length > this.#maxSamples) {
      const cut = this.#splitPoint(samples)
      pieces.push(this.#piece(samples.subarray(0, cut), start))
      samples = samples.subarray(cut)
      start += cut
      split = true
    }
    if (natural) {
      pieces.push(this.#piece(samples, start))
    } else {
      // speech goes on: end at the quietest point of the second half (unless just split), carry the rest over
      const cut = split ? 0 : quietestCut(samples, samples.length / 2, samples.length - MIN_PIECE)
      pieces.push(this.#piece(samples.subarray(0, cut), start))
      this.#carry = { samples: samples.slice(cut), start: start + cut }
    }
    return pieces.filter((piece) => piece.samples.length > 0)
  }

  /** Cut point of a span longer than the limit: both sides at most the limit and, if possible, not tiny. */
  #splitPoint(samples: Float32Array): number {
    const max = this.#maxSamples
    if (samples.length > 2 * max) return quietestCut(samples, max / 2, max)
    const from = Math.max(samples.length - max, Math.min(MIN_PIECE, samples.length / 2))
    const to = Math.min(max, Math.max(samples.length - MIN_PIECE, from))
    return quietestCut(samples, from, to)
  }

  #piece(samples: Float32Array, start: number): SpeechPiece {
    return { samples: samples.slice(), startSeconds: start / SAMPLE_RATE }
  }
}
