import t from 'tap'
import { redactUrl, vendorMessage } from '../../../lib/http-client.ts'
import { redact } from '../../../lib/secrets.ts'
import { BASE_URL_FALLBACK, describeHttpFailure } from '../../../providers/common/failure.ts'

const base = { provider: 'demo', url: 'https://api.example.com/v1/chat?key=abc', headers: new Headers() }

t.test('vendor messages are read from each vendor shape', async (t) => {
  t.equal(
    vendorMessage('{"error":"model \\"x\\" not found, try pulling it first"}'),
    'model "x" not found, try pulling it first',
  )
  t.equal(
    vendorMessage('{"error":{"message":"Invalid model","type":"invalid_request_error"}}'),
    'Invalid model',
  )
  t.equal(
    vendorMessage('{"type":"error","error":{"type":"not_found_error","message":"model: x"}}'),
    'model: x',
  )
  t.equal(vendorMessage('{"detail":"Not authenticated"}'), 'Not authenticated')
  t.equal(vendorMessage('upstream   connect\nerror'), 'upstream connect error')
  t.equal(vendorMessage('<!DOCTYPE html><html>…</html>'), '', 'HTML pages are not quoted')
  t.equal(vendorMessage(''), '')
  t.equal(vendorMessage('x'.repeat(1000)).length, 301, 'long bodies are cut')
})

t.test('statuses become sentences', async (t) => {
  t.equal(
    describeHttpFailure({ ...base, status: 404, body: '{"error":"model \\"x\\" not found"}' }),
    'demo: HTTP 404: model "x" not found',
  )
  t.equal(
    describeHttpFailure({ ...base, status: 404, body: '' }),
    'demo: HTTP 404: not found at https://api.example.com/v1/chat (check baseUrl and model)',
    'no query string in the message',
  )
  t.equal(
    describeHttpFailure({
      ...base,
      status: 401,
      body: '{"error":{"message":"bad key"}}',
      authHint: 'check the key',
    }),
    'demo: HTTP 401: authentication failed (check the key): bad key',
  )
  t.equal(describeHttpFailure({ ...base, status: 403, body: '' }), 'demo: HTTP 403: permission denied')
  t.equal(
    describeHttpFailure({
      ...base,
      status: 429,
      headers: new Headers({ 'retry-after': '20' }),
      body: '{"error":"slow down"}',
    }),
    'demo: HTTP 429: rate limited by the API, retry after 20 s: slow down',
  )
  t.equal(describeHttpFailure({ ...base, status: 500, body: '' }), 'demo: HTTP 500: server error')
  t.equal(
    describeHttpFailure({ ...base, status: 529, body: '' }),
    'demo: HTTP 529: the service is overloaded or unavailable',
  )
})

t.test('redact removes the configured secrets and key-shaped strings', async (t) => {
  t.equal(redact('key sk-abcdefghijklmnopqrstuvwxyz rejected', []), 'key [redacted] rejected')
  t.equal(redact('token hunter2-secret used', ['hunter2-secret']), 'token [redacted] used')
  t.equal(redact('sk-ant-api03-AAAAAAAAAAAAAAAAAAAA', []), '[redacted]')
  t.equal(redact('model gpt-4o-mini not found', []), 'model gpt-4o-mini not found', 'model names survive')
  t.equal(
    redact('use a key-value-store-setting', []),
    'use a key-value-store-setting',
    'ordinary words survive',
  )
})

t.test('redactUrl drops credentials, query and fragment', async (t) => {
  t.equal(
    redactUrl('https://user:pw@host.example:8443/v1/x?api_key=s#f', BASE_URL_FALLBACK),
    'https://host.example:8443/v1/x',
  )
  t.equal(redactUrl('not a url', BASE_URL_FALLBACK), 'the configured baseUrl')
})

t.test('secrets are taken out before a long message is shortened (no key cut in two)', async (t) => {
  const secret = 'my-private-token-0123456789abcdef'
  const keyShaped = `sk-${'A1b2C3d4'.repeat(5)}`
  for (const key of [secret, keyShaped]) {
    // The cut at 300 characters falls inside the key.
    const body = JSON.stringify({ error: { message: `${'x'.repeat(292)} ${key} rest of the message` } })
    const message = vendorMessage(body, [secret])
    t.notOk(
      message.includes(key.slice(0, 8)),
      `no part of ${key.slice(0, 6)}… is shown: ${message.slice(-40)}`,
    )
    t.match(message, /\[redact/, 'the key was replaced before the cut')
    const sentence = describeHttpFailure({ ...base, status: 400, body, secrets: [secret] })
    t.notOk(sentence.includes(key.slice(0, 8)), 'nor in the whole sentence')
  }
})
