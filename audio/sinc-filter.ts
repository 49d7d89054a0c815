/**
 * Windowed-sinc (Kaiser) low-pass kernels for the resampler, tabulated per fractional phase.
 *
 * The cutoff sits a little below the lower of the two Nyquist frequencies so that the transition band ends
 * near it: 44.1/48 kHz speech is band-limited before decimation instead of folding its 8-12 kHz energy
 * back into the speech band.
 */

/** Zero crossings of the sinc on each side of the centre: sets the steepness of the transition band. */
const ZERO_CROSSINGS = 16
/** Cutoff as a fraction of the lower Nyquist frequency. */
const ROLLOFF = 0.9
/** Kaiser window shape: about 80 dB of stop-band attenuation. */
const KAISER_BETA = 8
/** Above this many distinct phases the table is sampled coarser and interpolated. */
export const MAX_PHASES = 1024

export interface SincTable {
  /** Number of tabulated phases; rows `0..phases` (inclusive) are stored so interpolation never wraps. */
  phases: number
  /** Taps per row; a row for phase f holds h(j - (half - 1) - f) for j = 0..taps-1. */
  taps: number
  /** Taps left of the centre sample plus the centre itself. */
  half: number
  /** `(phases + 1) * taps` coefficients, each row normalised to unit DC gain. */
  coefficients: Float32Array
}

/** Modified Bessel function of the first kind, order 0 (power series; converges fast for beta <= 20). */
function besselI0(x: number): number {
  let sum = 1
  let term = 1
  const q = (x * x) / 4
  for (let k = 1; k < 50; k++) {
    term *= q / (k * k)
    sum += term
    if (term < sum * 1e-12) break
  }
  return sum
}

/**
 * Builds the kernel table for a conversion by `ratio` (output rate / input rate) with `phases` fractional
 * positions per input sample. Offsets are in input samples.
 */
export function buildSincTable(ratio: number, phases: number): SincTable {
  const cutoff = 0.5 * Math.min(1, ratio) * ROLLOFF // cycles per input sample
  const halfWidth = ZERO_CROSSINGS / (2 * cutoff)
  const half = Math.ceil(halfWidth)
  const taps = 2 * half
  const coefficients = new Float32Array((phases + 1) * taps)
  const windowNorm = besselI0(KAISER_BETA)
  for (let p = 0; p <= phases; p++) {
    const frac = p / phases
    let sum = 0
    const row = p * taps
    for (let j = 0; j < taps; j++) {
      const x = j - (half - 1) - frac
      const u = x / halfWidth
      if (Math.abs(u) >= 1) continue
      const arg = 2 * cutoff * x
      const sinc = arg === 0 ? 1 : Math.sin(Math.PI * arg) / (Math.PI * arg)
      const value = sinc * (besselI0(KAISER_BETA * Math.sqrt(1 - u * u)) / windowNorm)
      coefficients[row + j] = value
      sum += value
    }
    for (let j = 0; j < taps; j++) coefficients[row + j] = coefficients[row + j]! / sum
  }
  return { phases, taps, half, coefficients }
}
