/**
 * Wyoming's event framing, from the protocol's README (github.com/OHF-Voice/wyoming): a JSON object on one
 * line ending in `\n` — `type` (string), optional `data` (object), `data_length` and `payload_length`
 * (bytes) — then `data_length` bytes of UTF-8 JSON whose object is merged over `data`, then
 * `payload_length` bytes of payload (PCM audio). Events we send carry `version` (the protocol version we
 * follow) and put their data in the data section, as the reference implementation does.
 *
 * The reader is bounded where the bytes enter: the header line and the data section are JSON that clients
 * keep small (a model name, an audio format), so each is at most {@link MAX_JSON_BYTES} (or `maxFrameBytes`
 * when smaller); the payload (audio)
 * and the whole event (header line, data and payload together) are at most `maxFrameBytes` (config
 * `realtime.maxFrameBytes`). A longer one, or a header that is not such an object, is a {@link FrameError}
 * and the connection cannot go on (where the next event starts is unknown).
 */

/** The protocol version whose events we speak (1.7 added transcript streaming). */
export const PROTOCOL_VERSION = '1.7.0'

export interface WyomingEvent {
  type: string
  data: Record<string, unknown>
  payload: Buffer | null
}

export class FrameError extends Error {
  override readonly name = 'FrameError'
}

const NEWLINE = 0x0a

/**
 * Largest header line, and largest data section, a client may send: the events a client sends carry a few
 * short fields, and a JSON value echoed back (`ping`'s `text` in `pong`) is never larger than this.
 */
export const MAX_JSON_BYTES = 65_536

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A byte count field: absent (or null, as Python writes None) is 0; else a non-negative integer. */
function length(header: Record<string, unknown>, name: string): number {
  const value = header[name]
  if (value === undefined || value === null) return 0
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new FrameError(`"${name}" must be a non-negative integer.`)
  }
  return value
}

function parseJson(bytes: Buffer, what: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(bytes.toString('utf8'))
  } catch {
    throw new FrameError(`the ${what} is not valid JSON.`)
  }
  if (!isObject(value)) throw new FrameError(`the ${what} must be a JSON object.`)
  return value
}

/** Parses events out of the bytes of a connection, as they arrive. */
export class EventReader {
  readonly #maxFrameBytes: number
  /** Largest header line and largest data section. */
  readonly #maxJsonBytes: number
  /** Bytes received and not yet parsed: chunks are joined only when an event needs them (no copy per chunk). */
  #chunks: Buffer[] = []
  #length = 0
  /** The header of the event whose data and payload are still arriving. */
  #pending: { header: Record<string, unknown>; headerBytes: number; data: number; payload: number } | null =
    null

  constructor(maxFrameBytes: number) {
    this.#maxFrameBytes = maxFrameBytes
    this.#maxJsonBytes = Math.min(MAX_JSON_BYTES, maxFrameBytes)
  }

  /** Bytes received and not yet part of a whole event. */
  get buffered(): number {
    return this.#length
  }

  push(chunk: Buffer): void {
    this.#chunks.push(chunk)
    this.#length += chunk.length
  }

  /** Lets go of everything buffered (the connection ended). */
  clear(): void {
    this.#chunks = []
    this.#length = 0
    this.#pending = null
  }

  /** The buffered bytes as one buffer. */
  #joined(): Buffer {
    if (this.#chunks.length > 1) this.#chunks = [Buffer.concat(this.#chunks, this.#length)]
    return this.#chunks[0] ?? Buffer.alloc(0)
  }

  #consume(bytes: number): void {
    const rest = this.#joined().subarray(bytes)
    this.#chunks = rest.length > 0 ? [rest] : []
    this.#length = rest.length
  }

  /** The next whole event, or null until more bytes arrive. Throws a {@link FrameError} on bad input. */
  next(): WyomingEvent | null {
    if (this.#pending === null) {
      if (this.#length === 0) return null
      const buffer = this.#joined()
      const end = buffer.subarray(0, this.#maxJsonBytes + 1).indexOf(NEWLINE)
      if (end === -1) {
        if (buffer.length > this.#maxJsonBytes) {
          throw new FrameError(`the header line is longer than ${this.#maxJsonBytes} bytes.`)
        }
        return null
      }
      const header = parseJson(buffer.subarray(0, end), 'header line')
      if (typeof header.type !== 'string' || header.type === '') {
        throw new FrameError('the header has no "type" string.')
      }
      if (header.data !== undefined && header.data !== null && !isObject(header.data)) {
        throw new FrameError('"data" must be a JSON object.')
      }
      const data = length(header, 'data_length')
      const payload = length(header, 'payload_length')
      if (data > this.#maxJsonBytes) {
        throw new FrameError(`the data is longer than ${this.#maxJsonBytes} bytes.`)
      }
      if (end + 1 + data + payload > this.#maxFrameBytes) {
        throw new FrameError(`the event is longer than ${this.#maxFrameBytes} bytes.`)
      }
      this.#pending = { header, headerBytes: end + 1, data, payload }
    }
    const { header, headerBytes, data, payload } = this.#pending
    if (this.#length < headerBytes + data + payload) return null
    const buffer = this.#joined()
    let fields = isObject(header.data) ? header.data : {}
    if (data > 0) {
      fields = { ...fields, ...parseJson(buffer.subarray(headerBytes, headerBytes + data), 'data') }
    }
    const start = headerBytes + data
    // Copied: a view would keep the whole received buffer (and the events after this one) alive.
    const body = payload > 0 ? Buffer.from(buffer.subarray(start, start + payload)) : null
    this.#consume(start + payload)
    this.#pending = null
    return { type: header.type as string, data: fields, payload: body }
  }
}

/** One event as bytes on the wire. */
export function encodeEvent(type: string, data?: Record<string, unknown>, payload?: Buffer): Buffer {
  const header: Record<string, unknown> = { type, version: PROTOCOL_VERSION }
  const dataBytes = data && Object.keys(data).length > 0 ? Buffer.from(JSON.stringify(data), 'utf8') : null
  if (dataBytes) header.data_length = dataBytes.length
  if (payload && payload.length > 0) header.payload_length = payload.length
  return Buffer.concat([
    Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'),
    ...(dataBytes ? [dataBytes] : []),
    ...(payload && payload.length > 0 ? [payload] : []),
  ])
}
