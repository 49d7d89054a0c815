import http from 'node:http'
import net from 'node:net'
import t from 'tap'
import { build } from '../helpers/build.ts'
import { listen, rawRequest } from '../helpers/http.ts'

/** Sends only the head of a request announcing a large body, and reads what comes back. */
function headOnly(port: number, path: string, length: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"text":`,
      )
    })
    let data = ''
    socket.on('data', (chunk) => {
      data += chunk.toString()
      if (data.includes('\r\n\r\n') && data.includes('}')) socket.end()
    })
    socket.on('end', () => resolve(data))
    socket.on('close', () => resolve(data))
    socket.on('error', reject)
  })
}

t.test('413 is decided from Content-Length before the body is read (1 MB default)', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const reply = await headOnly(port, '/v1/postprocess', 2_000_000)
  t.match(reply, /^HTTP\/1\.1 413/)
  t.match(reply, /\{"error":"Request too large\.","code":"REQUEST_TOO_LARGE"\}/)
  const dictionary = await headOnly(port, '/v1/dictionary/replacements', 1_048_577)
  t.match(dictionary, /^HTTP\/1\.1 413/)
})

t.test('413 while streaming a body without Content-Length', async (t) => {
  const app = await build(t, { api: { bodyLimit: 4096 } })
  const port = await listen(t, app)
  const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/postprocess',
        headers: { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' },
      },
      (response) => {
        let body = ''
        response.on('data', (c) => (body += c))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
      },
    )
    request.on('error', reject)
    for (let i = 0; i < 10; i++) request.write('x'.repeat(1000))
    request.end()
  })
  t.equal(res.status, 413)
  t.same(JSON.parse(res.body), { error: 'Request too large.', code: 'REQUEST_TOO_LARGE' })
})

t.test('bodies under the limit are fine; the limit is configurable', async (t) => {
  const app = await build(t, { api: { bodyLimit: 2048 } })
  const port = await listen(t, app)
  const ok = await rawRequest({
    port,
    method: 'POST',
    path: '/v1/dictionary/custom-words',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'small' }),
  })
  t.equal(ok.status, 200)
  const big = await rawRequest({
    port,
    method: 'POST',
    path: '/v1/dictionary/custom-words',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'x'.repeat(3000) }),
  })
  t.equal(big.status, 413)
})
