/**
 * A small OpenAI-style transcription server on 127.0.0.1 for the remote engine's tests: it parses each
 * multipart upload (with the platform's own FormData parser), records it, and answers as the test scripts:
 * a status and body, headers such as Retry-After, or no answer at all. It also notes requests whose client
 * went away before the answer (cancellation, timeouts).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

export interface Upload {
  /** The request's path, e.g. `/v1/audio/transcriptions`. */
  url: string
  headers: http.IncomingHttpHeaders
  fields: Record<string, string[]>
  file: { name: string; type: string; bytes: Buffer } | null
}

export type Reply =
  | { status?: number; json?: unknown; body?: string; headers?: Record<string, string> }
  | 'hang'

export interface TranscriptionServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string
  port: number
  uploads: Upload[]
  /** Requests whose connection closed before they were answered. */
  abandoned: number
  /** Resolves when the next request arrives (uploads.length reaches n). */
  arrived(n: number): Promise<void>
  /** Resolves when `abandoned` reaches n. */
  abandonedCount(n: number): Promise<void>
  close(): Promise<void>
}

/** A verbose_json reply as Whisper servers send it. */
export function verboseReply(text: string, logprobs: number[] = [-0.1]) {
  return {
    task: 'transcribe',
    language: 'english',
    duration: 1,
    text,
    segments: logprobs.map((avg_logprob, id) => ({
      id,
      start: id,
      end: id + 1,
      text: ` ${text}`,
      avg_logprob,
    })),
  }
}

async function parseUpload(req: http.IncomingMessage, raw: Buffer): Promise<Upload> {
  const fields: Record<string, string[]> = {}
  let file: Upload['file'] = null
  const type = req.headers['content-type'] ?? ''
  if (type.startsWith('multipart/form-data')) {
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData()
    for (const [name, value] of form.entries()) {
      if (typeof value === 'string') fields[name] = [...(fields[name] ?? []), value]
      else file = { name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) }
    }
  }
  return { url: req.url ?? '', headers: req.headers, fields, file }
}

export async function startTranscriptionServer(
  t: Test,
  script: (upload: Upload, index: number) => Reply,
): Promise<TranscriptionServer> {
  const uploads: Upload[] = []
  const waiters: Array<() => void> = []
  let abandoned = 0
  const notify = () => {
    for (const wake of waiters.splice(0)) wake()
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    res.on('close', () => {
      if (!res.writableFinished) {
        abandoned++
        notify()
      }
    })
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      const upload = await parseUpload(req, Buffer.concat(chunks))
      uploads.push(upload)
      notify()
      const reply = script(upload, uploads.length - 1)
      if (reply === 'hang') return
      const body = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.body ?? '')
      const headers = { 'content-type': reply.json !== undefined ? 'application/json' : 'text/plain' }
      res.writeHead(reply.status ?? 200, { ...headers, ...reply.headers })
      res.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (done() ? resolve() : waiters.push(check))
      check()
    })
  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
    return closing
  }
  t.teardown(close)
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    uploads,
    get abandoned() {
      return abandoned
    },
    arrived: (n) => until(() => uploads.length >= n),
    abandonedCount: (n) => until(() => abandoned >= n),
    close,
  }
}
