/**
 * Reading a JSON body that has a few flat fields and may be large (base64 audio, up to 25 MB): the work that
 * grows with the body (UTF-8 decoding, the nesting scan, JSON.parse, the base64 decoding) is plain data in,
 * plain data out, so it runs the same here and in the body worker (worker.ts).
 */

/** A base64 field of a JSON body, decoded as it was read: the bytes, or null when it was not valid base64. */
export class DecodedBase64 {
  constructor(readonly data: Buffer | null) {}
}

export type ParsedBody =
  | { ok: true; value: Record<string, unknown> | unknown[] | string | number | boolean | null }
  | { ok: false }

export interface ParseRequest {
  /** Deeper nesting than this is refused before anything is built (24 MB of nested arrays took ~9 s). */
  maxDepth: number
  /** Top-level string fields holding base64, decoded while parsing (their string never reaches the API). */
  base64Fields: readonly string[]
}

/**
 * The body as JSON, its base64 fields turned into bytes (`Uint8Array`, or null where not valid base64); not
 * ok for an empty body, nesting over the limit or invalid JSON.
 */
export function parseBody(
  bytes: Uint8Array,
  request: ParseRequest,
): {
  parsed: ParsedBody
  decoded: Record<string, Uint8Array | null>
} {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  const decoded: Record<string, Uint8Array | null> = {}
  if (text.trim() === '' || depthOver(text, request.maxDepth)) return { parsed: { ok: false }, decoded }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { parsed: { ok: false }, decoded }
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const fields = value as Record<string, unknown>
    for (const name of request.base64Fields) {
      const field = fields[name]
      if (typeof field !== 'string') continue
      decoded[name] = decodeBase64(field)
      delete fields[name]
    }
  }
  return { parsed: { ok: true, value: value as Record<string, unknown> }, decoded }
}

/** The body the route sees: the parsed JSON with each decoded base64 field as a `DecodedBase64`. */
export function bodyOf(
  parsed: ParsedBody & { ok: true },
  decoded: Record<string, Uint8Array | null>,
): unknown {
  const value = parsed.value
  for (const [name, bytes] of Object.entries(decoded)) {
    const data = bytes === null ? null : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    ;(value as Record<string, unknown>)[name] = new DecodedBase64(data)
  }
  return value
}

/** True when objects/arrays nest deeper than `max` (brackets inside strings do not count). */
export function depthOver(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
      continue
    }
    if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** Decodes standard base64 (whitespace ignored); null when it is not valid base64 or decodes to nothing. */
export function decodeBase64(text: string): Buffer | null {
  const compact = text.replace(/\s+/g, '')
  if (compact.length === 0 || compact.length % 4 === 1 || !BASE64.test(compact)) return null
  const data = Buffer.from(compact, 'base64')
  return data.length > 0 ? data : null
}
