/**
 * A JSON body parser for routes that take only a few flat fields but a large body (base64 audio): bodies
 * nested deeper than `maxDepth` are refused by a scan before `JSON.parse` builds anything, and base64 fields
 * arrive decoded (`DecodedBase64`). Bodies over 256 KB are read in the body worker: decoding, scanning and
 * parsing 25 MB took the event loop for hundreds of milliseconds, during which no other request was answered.
 */
import type { Worker } from 'node:worker_threads'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ErrorFactory } from '../../errors/catalogue.ts'
import { startModuleWorker } from '../../lib/module-worker.ts'
import { bodyOf, type ParsedBody, type ParseRequest, parseBody } from './parse.ts'

export { DecodedBase64, depthOver, parseBody } from './parse.ts'

const INLINE_BYTES = 256 * 1024

export function useShallowJson(
  app: FastifyInstance,
  error: ErrorFactory,
  options: { maxDepth?: number; base64Fields?: readonly string[] } = {},
): void {
  const request: ParseRequest = { maxDepth: options.maxDepth ?? 4, base64Fields: options.base64Fields ?? [] }
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    (_request: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
      const bytes = typeof body === 'string' ? Buffer.from(body) : body
      const finish = ({ parsed, decoded }: Awaited<ReturnType<typeof parseOffThread>>) =>
        parsed.ok ? done(null, bodyOf(parsed, decoded)) : done(error())
      if (bytes.length <= INLINE_BYTES) return finish(parseBody(bytes, request))
      parseOffThread(bytes, request).then(finish, (err: unknown) => done(err as Error))
    },
  )
}

interface Pending {
  resolve: (result: { parsed: ParsedBody; decoded: Record<string, Uint8Array | null> }) => void
  reject: (err: unknown) => void
}

let worker: Worker | null = null
let nextId = 1
const pending = new Map<number, Pending>()
let keepAlive: NodeJS.Timeout | null = null

function settled(): void {
  if (pending.size > 0 || keepAlive === null) return
  clearInterval(keepAlive)
  keepAlive = null
}

/** One worker per process, started on the first large body; it never keeps the process alive itself. */
function bodyWorker(): Worker {
  if (worker) return worker
  const started = startModuleWorker(import.meta.url, 'worker')
  started.on(
    'message',
    (message: { id: number; parsed: ParsedBody; decoded: Record<string, Uint8Array | null> }) => {
      const waiting = pending.get(message.id)
      pending.delete(message.id)
      waiting?.resolve(message)
      settled()
    },
  )
  // A worker that fails takes its requests with it (their bodies are answered with the error) and is
  // started again on the next large body.
  const fail = (err: unknown) => {
    if (worker === started) worker = null
    for (const waiting of pending.values()) waiting.reject(err)
    pending.clear()
    settled()
  }
  started.on('error', fail)
  started.on('exit', (code) => fail(new Error(`the JSON body worker exited with code ${code}`)))
  started.unref()
  worker = started
  return started
}

/**
 * Parses `bytes` (parse.ts) in the body worker; also used for large realtime frames (routes/realtime).
 * `handOver`: the caller is done with `bytes`, which the worker may then take without a copy when they are
 * a whole buffer of their own (not a slice of a pooled or shared one); `bytes` are then left empty.
 */
export function parseOffThread(
  bytes: Buffer,
  request: ParseRequest,
  { handOver = false } = {},
): Promise<{ parsed: ParsedBody; decoded: Record<string, Uint8Array | null> }> {
  return new Promise((resolve, reject) => {
    const id = nextId++
    pending.set(id, { resolve, reject })
    // Otherwise the bytes are copied into memory the worker then owns (the body buffer may be pooled).
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    const moved = handOver && whole ? new Uint8Array(bytes.buffer) : new Uint8Array(bytes)
    bodyWorker().postMessage({ id, bytes: moved, ...request }, [moved.buffer as ArrayBuffer])
    // A request waiting for its body keeps the process alive (an in-process app has no socket that would).
    keepAlive ??= setInterval(() => {}, 60_000)
  })
}
