/** Regroups a stream of sample blocks of any size into blocks of exactly `size` (the last may be shorter). */
export async function* rechunk(
  source: AsyncIterable<Float32Array>,
  size: number,
): AsyncGenerator<Float32Array> {
  let current = new Float32Array(size)
  let filled = 0
  for await (const block of source) {
    let offset = 0
    while (offset < block.length) {
      const count = Math.min(size - filled, block.length - offset)
      current.set(block.subarray(offset, offset + count), filled)
      filled += count
      offset += count
      if (filled === size) {
        yield current
        current = new Float32Array(size)
        filled = 0
      }
    }
  }
  if (filled > 0) yield current.slice(0, filled)
}
