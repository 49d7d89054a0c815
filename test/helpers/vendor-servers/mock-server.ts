/**
 * A real HTTP server on 127.0.0.1 (port 0) that plays a vendor API: it records every request and answers
 * with the vendor's behaviour, or with whatever a test scripts (an error status, a broken body, silence).
 */
import http, { type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

export interface RecordedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  rawBody: string
  /** The parsed JSON body, or undefined when it was not JSON. */
  body: unknown
}

export type MockReply =
  | {
      status?: number
      json?: unknown
      body?: string
      headers?: Record<string, string>
      /** Answer only once this settles (a request held in flight while a test does something). */
      holdUntil?: Promise<unknown>
    }
  /** Accept the request and never answer (until the server closes). */
  | { hang: true }

export type MockHandler = (request: RecordedRequest) => MockReply

export interface MockServer {
  /** `http://127.0.0.1:<port>` */
  url: string
  requests: RecordedRequest[]
  /** Answers every following request with `handler` instead of the vendor behaviour; null restores it. */
  override(handler: MockHandler | null): void
  close(): Promise<void>
}

export async function startMockServer(t: Test, vendor: MockHandler): Promise<MockServer> {
  const requests: RecordedRequest[] = []
  let scripted: MockHandler | null = null
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const recorded = record(req, Buffer.concat(chunks).toString('utf8'))
      requests.push(recorded)
      answer(res, (scripted ?? vendor)(recorded))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  let closed: Promise<void> | undefined
  const close = () => {
    closed ??= new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
    return closed
  }
  t.teardown(close)
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    override: (handler) => {
      scripted = handler
    },
    close,
  }
}

function record(req: http.IncomingMessage, rawBody: string): RecordedRequest {
  let body: unknown
  try {
    body = JSON.parse(rawBody)
  } catch {
    body = undefined
  }
  return { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody, body }
}

function answer(res: http.ServerResponse, reply: MockReply): void {
  if ('hang' in reply) return
  if (reply.holdUntil) {
    const { holdUntil, ...rest } = reply
    void holdUntil.finally(() => answer(res, rest))
    return
  }
  const headers: Record<string, string> = { ...reply.headers }
  let body = reply.body ?? ''
  if (reply.json !== undefined) {
    body = JSON.stringify(reply.json)
    headers['content-type'] ??= 'application/json'
  }
  res.writeHead(reply.status ?? 200, headers)
  res.end(body)
}

/** The fake model of every mock vendor: the transcript (the text between the tags, if any) in capitals. */
export function fakeModel(userMessage: string): string {
  const tagged = /<transcript>\n?([\s\S]*?)\n?<\/transcript>/.exec(userMessage)
  return (tagged ? (tagged[1] ?? '') : userMessage).toUpperCase()
}

/** The content of the last message with role `user` of a chat request body. */
export function lastUserMessage(body: unknown): string {
  const messages = (body as { messages?: Array<{ role?: unknown; content?: unknown }> })?.messages ?? []
  const user = [...messages].reverse().find((m) => m.role === 'user')
  return typeof user?.content === 'string' ? user.content : ''
}
