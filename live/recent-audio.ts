/**
 * The last few hundred milliseconds of a session's audio, so that an item the VAD starts late (it needs
 * some speech before it is sure) still begins with the speech's onset and the prefix padding.
 */
export class RecentAudio {
  readonly #ring: Float32Array
  /** Absolute position of the first sample this ring was given. */
  readonly #first: number
  /** Absolute position of the next sample. */
  #end: number

  /** `start`: the absolute position of the first sample it will be given. */
  constructor(capacity: number, start = 0) {
    this.#ring = new Float32Array(Math.max(1, capacity))
    this.#first = start
    this.#end = start
  }

  /** Absolute position of the next sample. */
  get end(): number {
    return this.#end
  }

  push(samples: Float32Array): void {
    const size = this.#ring.length
    const kept = samples.length > size ? samples.subarray(samples.length - size) : samples
    this.#end += samples.length - kept.length
    for (let i = 0; i < kept.length; ) {
      const at = this.#end % size
      const run = Math.min(kept.length - i, size - at)
      this.#ring.set(kept.subarray(i, i + run), at)
      i += run
      this.#end += run
    }
  }

  /** The samples from absolute position `from` to now (clamped to what is still held). */
  since(from: number): Float32Array {
    const start = Math.min(this.#end, Math.max(from, this.#end - this.#ring.length, this.#first))
    const out = new Float32Array(this.#end - start)
    const size = this.#ring.length
    for (let i = 0; i < out.length; ) {
      const at = (start + i) % size
      const run = Math.min(out.length - i, size - at)
      out.set(this.#ring.subarray(at, at + run), i)
      i += run
    }
    return out
  }
}
