/**
 * A Wyoming client for tests, written from the protocol's README (github.com/OHF-Voice/wyoming, "Format"),
 * not from dictum's code: an event is a JSON header line (`type`, optional `data`, `data_length`,
 * `payload_length`) and `\n`, then `data_length` bytes of JSON merged over `data`, then `payload_length`
 * bytes of payload. It sends data either way (in the header, or as the data section).
 */
import net from 'node:net'

export interface Event {
  type: string
  data: Record<string, unknown>
  payload: Buffer | null
  /** The header as received (for `version`, `data_length`…). */
  header: Record<string, unknown>
}

export class WyomingClient {
  readonly socket: net.Socket
  #buffer = Buffer.alloc(0)
  #events: Event[] = []
  #waiting: (() => void) | null = null
  closed = false

  private constructor(socket: net.Socket) {
    this.socket = socket
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk])
      this.#parse()
      this.#waiting?.()
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      this.closed = true
      this.#waiting?.()
    })
  }

  /** `localAddress`: the client's own address (another loopback address, 127.0.0.2…, is another client). */
  static connect(port: number, host = '127.0.0.1', localAddress?: string): Promise<WyomingClient> {
    return new Promise((resolve, reject) => {
      const options = { port, host, ...(localAddress ? { localAddress } : {}) }
      const socket = net.connect(options, () => resolve(new WyomingClient(socket)))
      socket.once('error', reject)
    })
  }

  /** Sends an event; `dataSection` puts the data after the header line instead of inside it. */
  send(type: string, data?: Record<string, unknown>, payload?: Buffer, dataSection = false): void {
    const header: Record<string, unknown> = { type }
    let dataBytes: Buffer | null = null
    if (data && dataSection) {
      dataBytes = Buffer.from(JSON.stringify(data))
      header.data_length = dataBytes.length
    } else if (data) header.data = data
    if (payload) header.payload_length = payload.length
    this.socket.write(
      Buffer.concat([
        Buffer.from(`${JSON.stringify(header)}\n`),
        dataBytes ?? Buffer.alloc(0),
        payload ?? Buffer.alloc(0),
      ]),
    )
  }

  /** Writes raw bytes (malformed input). */
  raw(bytes: Buffer | string): void {
    this.socket.write(bytes)
  }

  /** The next event; null when the connection closed first. Gives up after `timeoutMs`. */
  async next(timeoutMs = 60_000): Promise<Event | null> {
    const deadline = Date.now() + timeoutMs
    while (this.#events.length === 0) {
      if (this.closed) return null
      if (Date.now() > deadline) throw new Error('no Wyoming event in time')
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100)
        this.#waiting = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
    return this.#events.shift()!
  }

  /** The events received and not yet read, now (none: an empty list). */
  take(): Event[] {
    return this.#events.splice(0)
  }

  /** Events up to and including one of `type`. */
  async until(type: string, timeoutMs = 60_000): Promise<Event[]> {
    const events: Event[] = []
    for (;;) {
      const event = await this.next(timeoutMs)
      if (event === null)
        throw new Error(`closed before ${type}: ${JSON.stringify(events.map((e) => e.type))}`)
      events.push(event)
      if (event.type === type) return events
    }
  }

  /** Resolves once the server has closed the connection. */
  async closedByServer(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error('the server did not close the connection')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  close(): void {
    this.socket.destroy()
  }

  #parse(): void {
    for (;;) {
      const end = this.#buffer.indexOf(0x0a)
      if (end === -1) return
      const header = JSON.parse(this.#buffer.subarray(0, end).toString('utf8')) as Record<string, unknown>
      const dataLength = Number(header.data_length ?? 0)
      const payloadLength = Number(header.payload_length ?? 0)
      if (this.#buffer.length < end + 1 + dataLength + payloadLength) return
      let data = (header.data as Record<string, unknown> | undefined) ?? {}
      if (dataLength > 0) {
        data = {
          ...data,
          ...JSON.parse(this.#buffer.subarray(end + 1, end + 1 + dataLength).toString('utf8')),
        }
      }
      const payloadStart = end + 1 + dataLength
      const payload =
        payloadLength > 0
          ? Buffer.from(this.#buffer.subarray(payloadStart, payloadStart + payloadLength))
          : null
      this.#buffer = this.#buffer.subarray(payloadStart + payloadLength)
      this.#events.push({ type: String(header.type), data, payload, header })
    }
  }
}

/** The PCM (16-bit mono) of a WAV file's data chunk, and its rate. */
export function wavPcm(wav: Buffer): { pcm: Buffer; rate: number } {
  const rate = wav.readUInt32LE(24)
  for (let at = 12; at + 8 <= wav.length; ) {
    const size = wav.readUInt32LE(at + 4)
    if (wav.toString('latin1', at, at + 4) === 'data')
      return { pcm: wav.subarray(at + 8, at + 8 + size), rate }
    at += 8 + size + (size % 2)
  }
  throw new Error('no data chunk')
}

/**
 * Streams audio as a Home Assistant pipeline does: `transcribe`, `audio-start`, `audio-chunk`s of
 * `chunkBytes`, `audio-stop`; returns the events up to `transcript-stop`.
 */
export async function transcribe(
  client: WyomingClient,
  pcm: Buffer,
  format: { rate: number; width: number; channels: number },
  options: { chunkBytes?: number; name?: string; language?: string } = {},
): Promise<Event[]> {
  client.send('transcribe', {
    ...(options.name ? { name: options.name } : {}),
    ...(options.language ? { language: options.language } : {}),
  })
  client.send('audio-start', { ...format, timestamp: 0 }, undefined, true)
  const chunk = options.chunkBytes ?? 3200
  for (let at = 0; at < pcm.length; at += chunk) {
    client.send('audio-chunk', format, pcm.subarray(at, at + chunk))
  }
  client.send('audio-stop', { timestamp: 0 })
  return client.until('transcript-stop')
}
