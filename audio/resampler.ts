/**
 * Streaming band-limited resampler (polyphase windowed sinc) from any input rate to the target rate.
 *
 * Output sample k sits at input position k * inRate / outRate, tracked as an exact fraction so there is no
 * drift over hours of audio. State (the tail of the input) is carried across `push` calls, so chunked and
 * whole-buffer conversion give identical samples. Lengths follow one rule:
 * `outputLength(frames) = round(frames * outRate / inRate)` (just `frames` when the rates are equal).
 */

import { concatSamples } from './samples.ts'
import { buildSincTable, MAX_PHASES, type SincTable } from './sinc-filter.ts'

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b]
  return a
}

/** Number of output samples for `frames` input frames: round half up of frames * outRate / inRate. */
export function resampledLength(frames: number, inRate: number, outRate: number): number {
  if (inRate === outRate) return frames
  const g = gcd(inRate, outRate)
  const up = outRate / g
  const down = inRate / g
  return Math.floor((2 * frames * up + down) / (2 * down))
}

export interface Resampler {
  /** Feeds input samples; returns the output samples that are now complete (possibly none). */
  push(input: Float32Array): Float32Array
  /** Ends the signal after `totalFrames` input frames; returns the remaining output samples. */
  finish(totalFrames: number): Float32Array
}

class Passthrough implements Resampler {
  push(input: Float32Array): Float32Array {
    return input
  }

  finish(): Float32Array {
    return new Float32Array(0)
  }
}

class SincResampler implements Resampler {
  readonly #up: number
  readonly #down: number
  readonly #table: SincTable
  /** Input samples, the first at absolute index `#base`; negative indices are the zero padding. */
  #buffer: Float32Array
  #length: number
  #base: number
  /** Centre of the next output: absolute input index `#index` plus `#remainder / #up`. */
  #index = 0
  #remainder = 0
  #produced = 0

  constructor(inRate: number, outRate: number) {
    const g = gcd(inRate, outRate)
    this.#up = outRate / g
    this.#down = inRate / g
    this.#table = buildSincTable(outRate / inRate, Math.min(this.#up, MAX_PHASES))
    const lead = this.#table.half - 1
    this.#buffer = new Float32Array(Math.max(4096, 4 * this.#table.taps))
    this.#length = lead
    this.#base = -lead
  }

  push(input: Float32Array): Float32Array {
    this.#append(input)
    return this.#drain(Number.POSITIVE_INFINITY)
  }

  finish(totalFrames: number): Float32Array {
    const total = resampledLength(totalFrames, this.#down, this.#up)
    const parts: Float32Array[] = []
    let count = 0
    while (this.#produced < total) {
      this.#append(new Float32Array(this.#table.taps))
      const part = this.#drain(total)
      parts.push(part)
      count += part.length
    }
    return concatSamples(parts, count)
  }

  #append(input: Float32Array): void {
    const needed = this.#length + input.length
    if (needed > this.#buffer.length) {
      const grown = new Float32Array(Math.max(needed, this.#buffer.length * 2))
      grown.set(this.#buffer.subarray(0, this.#length))
      this.#buffer = grown
    }
    this.#buffer.set(input, this.#length)
    this.#length += input.length
  }

  /** Computes every output whose window is complete (up to `limit` outputs in total), then drops used input. */
  #drain(limit: number): Float32Array {
    const { taps, half, phases, coefficients } = this.#table
    const exact = phases === this.#up
    const available = this.#base + this.#length
    const estimate = Math.ceil(((available - this.#index) * this.#up) / this.#down) + 2
    const out = new Float32Array(Math.max(0, estimate))
    const buffer = this.#buffer
    let n = 0
    while (this.#produced < limit && this.#index + half < available && n < out.length) {
      const start = this.#index - (half - 1) - this.#base
      let acc = 0
      if (exact) {
        const row = this.#remainder * taps
        for (let j = 0; j < taps; j++) acc += buffer[start + j]! * coefficients[row + j]!
      } else {
        const position = (this.#remainder * phases) / this.#up
        const p = Math.floor(position)
        const frac = position - p
        const row = p * taps
        for (let j = 0; j < taps; j++) {
          const a = coefficients[row + j]!
          acc += buffer[start + j]! * (a + (coefficients[row + taps + j]! - a) * frac)
        }
      }
      out[n++] = acc
      this.#produced++
      this.#remainder += this.#down
      this.#index += Math.floor(this.#remainder / this.#up)
      this.#remainder %= this.#up
    }
    this.#discardBefore(this.#index - (half - 1))
    return out.subarray(0, n)
  }

  #discardBefore(absolute: number): void {
    const drop = Math.min(absolute - this.#base, this.#length)
    if (drop <= 0) return
    this.#buffer.copyWithin(0, drop, this.#length)
    this.#length -= drop
    this.#base += drop
  }
}

/** A resampler from `inRate` to `outRate`; equal rates pass samples through untouched. */
export function createResampler(inRate: number, outRate: number): Resampler {
  return inRate === outRate ? new Passthrough() : new SincResampler(inRate, outRate)
}
