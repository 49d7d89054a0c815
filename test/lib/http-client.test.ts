/**
 * The one outbound-HTTP module (issue 12 item 4), against a real server on loopback: the reply read whole
 * within a time limit, a body over the cap refused, and every way an exchange fails in one vocabulary.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { fetchReply, OutboundFailure, redactUrl } from '../../lib/http-client.ts'
import { deadUrl } from '../helpers/vendor-servers/provider-harness.ts'

async function serve(t: Test, handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

async function failure(promise: Promise<unknown>): Promise<OutboundFailure> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  if (!(error instanceof OutboundFailure)) throw new Error(`expected an OutboundFailure, got ${error}`)
  return error
}

t.test('a reply is read whole: status, headers and text', async (t) => {
  const url = await serve(t, (req, res) => {
    res.writeHead(418, { 'x-seen': req.method ?? '' })
    res.end('short and stout')
  })
  const reply = await fetchReply({ url, method: 'POST', body: 'x', timeoutMs: 5000 })
  t.equal(reply.status, 418)
  t.equal(reply.headers.get('x-seen'), 'POST')
  t.equal(reply.text, 'short and stout')
})

t.test('a body over the cap is refused (too-large), not buffered', async (t) => {
  const url = await serve(t, (_req, res) => {
    res.writeHead(200)
    res.end(Buffer.alloc(4096, 97))
  })
  const error = await failure(fetchReply({ url, timeoutMs: 5000, maxBytes: 1000 }))
  t.equal(error.kind, 'too-large')
  t.equal(error.message, 'the reply is larger than 1000 bytes')
})

t.test('a server that sends no reply in time is a timeout; the caller aborting is aborted', async (t) => {
  const url = await serve(t, () => {})
  const slow = await failure(fetchReply({ url, timeoutMs: 100 }))
  t.equal(slow.kind, 'timeout')
  t.equal(slow.message, 'no reply within 100 ms')
  const caller = new AbortController()
  const pending = fetchReply({ url, timeoutMs: 60_000, signal: caller.signal })
  setTimeout(() => caller.abort(new Error('client went away')), 50)
  const aborted = await failure(pending)
  t.equal(aborted.kind, 'aborted')
  t.match(aborted.cause, { message: 'client went away' }, "the caller's reason is the cause")
})

t.test('nobody listening is a network failure with the system code', async (t) => {
  const error = await failure(fetchReply({ url: await deadUrl(), timeoutMs: 5000 }))
  t.equal(error.kind, 'network')
  t.equal(error.code, 'ECONNREFUSED')
  t.equal(error.message, 'ECONNREFUSED')
})

t.test('redactUrl: one function for every URL in a message, the fallback chosen by the caller', async (t) => {
  t.equal(redactUrl('https://u:p@example.com:8443/a/b?sig=1#f'), 'https://example.com:8443/a/b')
  t.equal(redactUrl('not a url'), '(invalid URL)')
  t.equal(redactUrl('not a url', 'the configured baseUrl'), 'the configured baseUrl')
})
