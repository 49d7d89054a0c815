/**
 * A realtime client for the tests: the `ws` library sending the openai package's typed client events
 * (`RealtimeClientEvent`, so the type checker holds them to OpenAI's shape) and collecting every server event.
 */
import { execFileSync } from 'node:child_process'
import type {
  RealtimeClientEvent,
  RealtimeServerEvent,
  TranscriptionSessionUpdate,
} from 'openai/resources/realtime/realtime'
import type { Test } from 'tap'
import WebSocket from 'ws'
import { pcm16Wav } from '../../../audio/wav-encode.ts'
import { rawRequest } from '../../helpers/http.ts'

// biome-ignore lint/suspicious/noExplicitAny: server events are read as loose JSON
export type Received = { type: string; event_id: string } & Record<string, any>

export interface OpenOptions {
  query?: string
  headers?: Record<string, string>
  protocols?: string[]
}

export class RealtimeTestClient {
  readonly events: Received[] = []
  readonly raw: string[] = []
  readonly socket: WebSocket
  readonly closed: Promise<{ code: number; reason: string }>
  #waiters: Array<() => void> = []

  constructor(socket: WebSocket) {
    this.socket = socket
    // Errors after the handshake (a reset) show as the close; without a listener ws would throw them.
    socket.on('error', () => {})
    socket.on('message', (data) => {
      const text = data.toString()
      this.raw.push(text)
      this.events.push(JSON.parse(text) as Received)
      for (const wake of this.#waiters.splice(0)) wake()
    })
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() })
        for (const wake of this.#waiters.splice(0)) wake()
      }),
    )
  }

  send(event: RealtimeClientEvent | TranscriptionSessionUpdate): void {
    this.socket.send(JSON.stringify(event))
  }

  sendRaw(data: string | Buffer, binary = false): void {
    this.socket.send(data, { binary })
  }

  /** Waits for the first event (from `from` on) that passes `match`; the test's timeout bounds the wait. */
  async waitFor(match: (e: Received) => boolean, from = 0): Promise<Received> {
    for (;;) {
      const found = this.events.slice(from).find(match)
      if (found) return found
      if (this.socket.readyState === WebSocket.CLOSED) {
        throw new Error(`socket closed before the event; got ${this.events.map((e) => e.type).join(', ')}`)
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve))
    }
  }

  next(type: RealtimeServerEvent['type'] | 'transcription_session.created', from = 0): Promise<Received> {
    return this.waitFor((e) => e.type === type, from)
  }

  ofType(type: string): Received[] {
    return this.events.filter((e) => e.type === type)
  }

  /** Appends PCM16 bytes in chunks of `chunkBytes` (100 ms at 24 kHz by default). */
  appendPcm(pcm: Buffer, chunkBytes = 4800): void {
    for (let at = 0; at < pcm.length; at += chunkBytes) {
      this.send({
        type: 'input_audio_buffer.append',
        audio: pcm.subarray(at, at + chunkBytes).toString('base64'),
      })
    }
  }
}

/** Opens `/v1/realtime` on `port`; resolves once open (rejects on a refused handshake). */
export function openRealtime(t: Test, port: number, options: OpenOptions = {}): Promise<RealtimeTestClient> {
  const socket = new WebSocket(
    `ws://127.0.0.1:${port}/v1/realtime${options.query ?? '?intent=transcription'}`,
    options.protocols ?? [],
    { headers: options.headers ?? {} },
  )
  const client = new RealtimeTestClient(socket)
  t.teardown(() => socket.terminate())
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(client))
    socket.once('error', reject)
  })
}

/** The handshake's HTTP refusal: status and JSON body (the `ws` client's unexpected-response event). */
export function refusedHandshake(
  port: number,
  options: OpenOptions = {},
): Promise<{ status: number; body: { error: string; code: string } }> {
  const socket = new WebSocket(
    `ws://127.0.0.1:${port}/v1/realtime${options.query ?? '?intent=transcription'}`,
    options.protocols ?? [],
    { headers: options.headers ?? {} },
  )
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      socket.terminate()
      reject(new Error('the handshake was accepted'))
    })
    socket.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = []
      response.on('data', (c: Buffer) => chunks.push(c))
      response.on('end', () => {
        socket.terminate()
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) })
      })
    })
    socket.once('error', () => {})
  })
}

const decodedClips = new Map<string, Buffer>()

/**
 * A speech clip as PCM16 mono little-endian at `rate` (ffmpeg resamples it), decoded once per test process
 * (a Debian ffmpeg start costs ~0.1 s of CPU, and the realtime tests send the same clips many times); a
 * copy each time, so that a test may change its own.
 */
export function pcmOf(file: string, rate = 24000): Buffer {
  const key = `${rate}:${file}`
  let pcm = decodedClips.get(key)
  if (!pcm) {
    pcm = execFileSync(
      'ffmpeg',
      ['-v', 'error', '-i', file, '-f', 's16le', '-ac', '1', '-ar', String(rate), '-'],
      {
        maxBuffer: 64 * 1024 * 1024,
      },
    )
    decodedClips.set(key, pcm)
  }
  return Buffer.from(pcm)
}

/** `ms` of silence as PCM16 at `rate`. */
export function silence(ms: number, rate = 24000): Buffer {
  return Buffer.alloc(Math.round((rate * ms) / 1000) * 2)
}

/** The text POST /v1/transcribe gives for this PCM16 audio: what a realtime item of it must come to. */
export async function fileText(port: number, pcm: Buffer, rate: number): Promise<string> {
  const res = await rawRequest({
    port,
    method: 'POST',
    path: '/v1/transcribe',
    headers: { 'content-type': 'audio/wav' },
    body: pcm16Wav(pcm, rate),
  })
  if (res.status !== 200) throw new Error(`POST /v1/transcribe: ${res.status} ${res.text}`)
  return res.json.text
}

/** The item's completed or failed event. */
export function completedOf(client: RealtimeTestClient, itemId: string): Promise<Received> {
  return client.waitFor(
    (e) =>
      (e.type === 'conversation.item.input_audio_transcription.completed' ||
        e.type === 'conversation.item.input_audio_transcription.failed') &&
      e.item_id === itemId,
  )
}
