/**
 * A small seeded pseudo-random generator for the fuzz tests (mulberry32: 32-bit state, good enough spread
 * for choosing inputs, and the same sequence for the same seed on every machine), with the few draws the
 * request generator needs.
 */
export class Prng {
  #state: number

  constructor(readonly seed: number) {
    this.#state = seed >>> 0
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0
    let t = this.#state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!
  }

  /** A length skewed towards small values but reaching `max` now and then (log-uniform). */
  length(max: number): number {
    return Math.min(max, Math.floor(Math.exp(this.next() * Math.log(max + 1))))
  }

  /** Random bytes. */
  bytes(length: number): Buffer {
    const out = Buffer.allocUnsafe(length)
    for (let i = 0; i < length; i++) out[i] = Math.floor(this.next() * 256)
    return out
  }
}

/** The seed of this run: `DICTUM_FUZZ_SEED` to replay one, else a fresh one. */
export function fuzzSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.DICTUM_FUZZ_SEED
  if (given !== undefined && given !== '') {
    const seed = Number(given)
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
      throw new Error(`DICTUM_FUZZ_SEED must be an integer in 0..4294967295, got "${given}"`)
    return seed
  }
  return Math.floor(Math.random() * 0x100000000)
}
