/** Helpers over 16 kHz mono float sample arrays, shared by the decoder, the pipeline and the CLI. */

/** The parts joined into one array (the part itself when there is only one of the full length). */
export function concatSamples(
  parts: readonly Float32Array[],
  length = parts.reduce((n, p) => n + p.length, 0),
): Float32Array {
  if (parts.length === 1 && parts[0]!.length === length) return parts[0]!
  const out = new Float32Array(length)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}
