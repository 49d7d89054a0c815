/**
 * Requests that fail before routing answer in dictum's shape with a code: a malformed request line or header
 * and headers too large (Node's HTTP parser), a URL Fastify cannot decode. They used to come back as Node's
 * bare `400 Bad Request` / `431` or Fastify's own body.
 */
import net from 'node:net'
import t from 'tap'
import { build } from '../helpers/build.ts'
import { listen } from '../helpers/http.ts'

/** Sends raw bytes and reads until the server closes the connection. */
function raw(port: number, request: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request))
    let data = ''
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      data += chunk
    })
    socket.on('error', reject)
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1])
      const text = data.slice(data.indexOf('\r\n\r\n') + 4)
      try {
        resolve({ status, body: JSON.parse(text) })
      } catch {
        resolve({ status, body: text })
      }
    })
  })
}

t.test('parser and framework errors use the error catalogue', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const header = await raw(port, 'GET /v1/health HTTP/1.1\r\nHost: localhost\r\nBad Header Line\r\n\r\n')
  t.equal(header.status, 400)
  t.same(header.body, { error: 'Bad request: the HTTP request is malformed.', code: 'MALFORMED_REQUEST' })

  const big = await raw(
    port,
    `GET /v1/health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  )
  t.equal(big.status, 431)
  t.same(big.body, { error: 'Request headers too large.', code: 'HEADERS_TOO_LARGE' })

  const url = await raw(port, 'GET /v1/%zz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
  t.equal(url.status, 400)
  t.match(url.body, { error: /the URL is malformed/, code: 'INVALID_REQUEST' })
  t.notOk(JSON.stringify(url.body).includes('FST_'), 'no Fastify code or shape')

  const fine = await raw(port, 'GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
  t.equal(fine.status, 200, 'a sound request on a new connection is served')
})

t.test('an Expect header other than 100-continue is ignored (found by test/fuzz)', async (t) => {
  // Node answered it with a bare 417 and no body, outside dictum's error shape.
  const app = await build(t)
  const port = await listen(t, app)
  const health = await raw(
    port,
    'GET /v1/health HTTP/1.1\r\nHost: localhost\r\nExpect: something-else\r\nConnection: close\r\n\r\n',
  )
  t.equal(health.status, 200)
  t.match(health.body, { status: 'ok' })
  const unknown = await raw(
    port,
    'GET /v1/nope HTTP/1.1\r\nHost: localhost\r\nExpect: x\r\nConnection: close\r\n\r\n',
  )
  t.same(unknown, { status: 404, body: { error: 'Route not found.', code: 'ROUTE_NOT_FOUND' } })
})
