/** Where to cut speech that runs on without a pause: the quietest short frame in a window. */

const FRAME = 320 // 20 ms at 16 kHz
const HOP = 160 // 10 ms

/**
 * Index in `samples` (within [from, to)) at the centre of the 20 ms frame with the least energy; ties go to
 * the latest frame so pieces stay as long as allowed. `to - from` shorter than a frame returns `to`.
 */
export function quietestCut(samples: Float32Array, from: number, to: number): number {
  const start = Math.max(0, Math.floor(from))
  const end = Math.min(samples.length, Math.floor(to))
  if (end - start < FRAME) return end
  let best = end
  let bestEnergy = Number.POSITIVE_INFINITY
  for (let frame = start; frame + FRAME <= end; frame += HOP) {
    let energy = 0
    for (let i = frame; i < frame + FRAME; i++) {
      const v = samples[i]!
      energy += v * v
    }
    if (energy <= bestEnergy) {
      bestEnergy = energy
      best = frame + FRAME / 2
    }
  }
  return best
}
