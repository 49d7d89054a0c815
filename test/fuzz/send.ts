/**
 * Sends a fuzz request over real loopback HTTP: through Node's client on keep-alive connections, or as raw
 * bytes on a socket of its own when the request has raw framing (or Node's client refuses its bytes).
 */
import http from 'node:http'
import net from 'node:net'
import type { FuzzRequest } from './requests.ts'

export interface FuzzResponse {
  status: number
  headers: Record<string, string>
  body: Buffer
}

/** What came back: a response, the connection closed without one, or nothing within `timeoutMs`. */
export type Outcome = FuzzResponse | 'closed' | 'timeout'

export function send(
  request: FuzzRequest,
  port: number,
  agent: http.Agent,
  timeoutMs: number,
): Promise<Outcome> {
  if (request.raw) return sendRaw(request.raw, request.incomplete, port, timeoutMs)
  try {
    return sendHttp(request, port, agent, timeoutMs)
  } catch {
    // Node's client refuses some header or path bytes (ERR_INVALID_CHAR, ERR_UNESCAPED_CHARACTERS): send
    // the same request as raw bytes.
    return sendRaw(rawBytes(request), false, port, timeoutMs)
  }
}

function sendHttp(
  request: FuzzRequest,
  port: number,
  agent: http.Agent,
  timeoutMs: number,
): Promise<Outcome> {
  const headers: Record<string, string> = {}
  for (const [name, value] of request.headers) headers[name] = value
  // Throws synchronously on bytes Node's client will not send (caught by `send`).
  const outgoing = http.request({
    host: '127.0.0.1',
    port,
    method: request.method,
    path: request.target,
    headers,
    agent,
  })
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      outgoing.destroy()
      resolve('timeout')
    }, timeoutMs)
    const done = (outcome: Outcome) => {
      clearTimeout(timer)
      resolve(outcome)
    }
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () =>
        done({
          status: response.statusCode ?? 0,
          headers: flat(response.headers),
          body: Buffer.concat(chunks),
        }),
      )
      response.on('error', () =>
        done({
          status: response.statusCode ?? 0,
          headers: flat(response.headers),
          body: Buffer.concat(chunks),
        }),
      )
    })
    // The server may answer (413…) and close before the whole body was written: the response still counts.
    outgoing.on('error', () => setTimeout(() => done('closed'), 0))
    outgoing.end(request.body)
  })
}

function flat(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value
  return out
}

function rawBytes(request: FuzzRequest): Buffer {
  const body = request.body ?? Buffer.alloc(0)
  const head = [
    `${request.method} ${request.target} HTTP/1.1`,
    ...request.headers.map(([n, v]) => `${n}: ${v}`),
    `Content-Length: ${body.length}`,
    'Connection: close',
    '',
    '',
  ]
  return Buffer.concat([Buffer.from(head.join('\r\n'), 'latin1'), body])
}

/**
 * Writes `bytes` and reads until the server closes; parses the first response. An incomplete request is
 * followed by a half-close (it would otherwise wait for the rest of its body).
 */
function sendRaw(bytes: Buffer, incomplete: boolean, port: number, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(bytes, () => {})
      if (incomplete) socket.end()
    })
    const timer = setTimeout(() => {
      socket.destroy()
      resolve('timeout')
    }, timeoutMs)
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(parseResponse(Buffer.concat(chunks)))
    })
  })
}

function parseResponse(data: Buffer): Outcome {
  const end = data.indexOf('\r\n\r\n')
  if (end < 0) return 'closed'
  const lines = data.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1])
  if (!Number.isInteger(status)) return 'closed'
  const headers: Record<string, string> = {}
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  let body = data.subarray(end + 4)
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body)
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']))
  return { status, headers, body }
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = []
  let at = 0
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at)
    if (lineEnd < 0) break
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16)
    if (!Number.isFinite(size) || size === 0) break
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
  return Buffer.concat(parts)
}
