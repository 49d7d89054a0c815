import { concatSamples } from './samples.ts'

/**
 * Regroups a stream of sample blocks of any size into blocks of exactly `size` (the last may be shorter).
 * Parts are held as views of the source blocks and copied only when a block spans several of them, so a
 * source block that holds whole blocks (a WAV decoded in one slice) goes out without a copy. Source blocks
 * must not be reused by their producer; consumers must not write to what they get.
 */
export async function* rechunk(
  source: AsyncIterable<Float32Array>,
  size: number,
): AsyncGenerator<Float32Array> {
  let parts: Float32Array[] = []
  let filled = 0
  for await (const block of source) {
    let offset = 0
    while (offset < block.length) {
      const count = Math.min(size - filled, block.length - offset)
      parts.push(block.subarray(offset, offset + count))
      filled += count
      offset += count
      if (filled === size) {
        yield concatSamples(parts, size)
        parts = []
        filled = 0
      }
    }
  }
  if (filled > 0) yield concatSamples(parts, filled)
}
