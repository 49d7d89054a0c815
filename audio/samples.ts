/** Helpers over 16 kHz mono float sample arrays, shared by the decoder, the pipeline and the CLI. */

/** The parts joined into one array (the part itself when there is only one of the full length). */
export function concatSamples(
  parts: readonly Float32Array[],
  length = parts.reduce((n, p) => n + p.length, 0),
): Float32Array {
  if (parts.length === 1 && parts[0]!.length === length) return parts[0]!
  const joined = adjacentView(parts, length)
  if (joined) return joined
  const out = new Float32Array(length)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

/** One view over the parts when they are consecutive views of one buffer (as the decoder yields them). */
function adjacentView(parts: readonly Float32Array[], length: number): Float32Array | null {
  const first = parts[0]
  if (!first) return null
  let end = first.byteOffset
  for (const part of parts) {
    if (part.buffer !== first.buffer || part.byteOffset !== end) return null
    end += part.byteLength
  }
  return end - first.byteOffset === length * 4
    ? new Float32Array(first.buffer, first.byteOffset, length)
    : null
}
