import t from 'tap'
import { hostnameOf, isLoopbackHostname } from '../../http/guard.ts'
import { build } from '../helpers/build.ts'
import { listen, rawRequest } from '../helpers/http.ts'

t.test('loopback names', async (t) => {
  for (const name of [
    'localhost',
    'LOCALHOST',
    'app.localhost',
    '127.0.0.1',
    '127.1.2.3',
    '[::1]',
    '::1',
    'localhost.',
  ]) {
    t.ok(isLoopbackHostname(name), name)
  }
  for (const name of [
    'example.com',
    '127.0.0.256',
    '10.0.0.1',
    '192.168.1.5',
    'localhost.evil.com',
    '0.0.0.0',
    '',
  ]) {
    t.notOk(isLoopbackHostname(name), name)
  }
  t.equal(hostnameOf('[::1]:47733'), '[::1]')
  t.equal(hostnameOf('localhost:80'), 'localhost')
})

t.test('Host header guard over real HTTP (DNS rebinding)', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const get = (host: string) => rawRequest({ port, path: '/v1/health', headers: { host } })
  t.equal((await get(`127.0.0.1:${port}`)).status, 200)
  t.equal((await get(`localhost:${port}`)).status, 200)
  t.equal((await get(`[::1]:${port}`)).status, 200)
  const evil = await get(`evil.example:${port}`)
  t.equal(evil.status, 403)
  t.same(evil.json, { error: 'Forbidden: the Host header is not a loopback name.', code: 'FORBIDDEN_HOST' })
  t.equal((await get('192.168.1.20')).status, 403)
  const post = await rawRequest({
    port,
    method: 'POST',
    path: '/v1/dictionary/custom-words',
    headers: { host: 'attacker.test', 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'pwned' }),
  })
  t.equal(post.status, 403)
  t.equal(app.dictum.dictionary.listCustomWords().count, 0, 'the rejected write stored nothing')
})

t.test('api.allowedHosts admits a named LAN host', async (t) => {
  const app = await build(t, { api: { allowedHosts: ['studio.lan'] } })
  const port = await listen(t, app)
  t.equal(
    (await rawRequest({ port, path: '/v1/health', headers: { host: `studio.lan:${port}` } })).status,
    200,
  )
  t.equal((await rawRequest({ port, path: '/v1/health', headers: { host: 'other.lan' } })).status, 403)
})

t.test('Origin guard: cross-site requests are refused, loopback and listed origins allowed', async (t) => {
  const app = await build(t, { api: { allowedOrigins: ['https://tools.example'] } })
  const port = await listen(t, app)
  const withOrigin = (origin: string, method = 'GET') =>
    rawRequest({
      port,
      method,
      path: method === 'GET' ? '/v1/health' : '/v1/dictionary/replacements',
      headers: { origin, 'content-type': 'application/json' },
      ...(method === 'POST' ? { body: JSON.stringify({ triggers: ['x'], replacement: 'Y' }) } : {}),
    })
  const cross = await withOrigin('https://evil.example', 'POST')
  t.equal(cross.status, 403)
  t.same(cross.json, { error: 'Forbidden: cross-origin requests are not allowed.', code: 'FORBIDDEN_ORIGIN' })
  t.equal(app.dictum.dictionary.listReplacements().count, 0)
  t.equal((await withOrigin('null')).status, 403, 'opaque origin')
  const local = await withOrigin(`http://localhost:${port}`)
  t.equal(local.status, 200)
  t.equal(local.headers['access-control-allow-origin'], `http://localhost:${port}`)
  t.equal((await withOrigin('https://tools.example')).status, 200)
  const preflight = await rawRequest({
    port,
    method: 'OPTIONS',
    path: '/v1/dictionary/replacements',
    headers: { origin: 'https://tools.example', 'access-control-request-method': 'POST' },
  })
  t.equal(preflight.status, 204)
  t.match(preflight.headers['access-control-allow-methods'], /POST/)
  const badPreflight = await rawRequest({
    port,
    method: 'OPTIONS',
    path: '/v1/dictionary/replacements',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
  })
  t.equal(badPreflight.status, 403)
})

t.test('api.token: every request but the health check needs the bearer token', async (t) => {
  const app = await build(t, { api: { token: 's3cret-token' } })
  const port = await listen(t, app)
  const none = await rawRequest({ port, path: '/v1/history' })
  t.equal(none.status, 401)
  t.same(none.json, { error: 'Unauthorized: a valid bearer token is required.', code: 'UNAUTHORIZED' })
  t.equal(none.headers['www-authenticate'], 'Bearer')
  t.notMatch(none.text, /s3cret/)
  t.equal(
    (await rawRequest({ port, path: '/v1/history', headers: { authorization: 'Bearer wrong' } })).status,
    401,
  )
  t.equal(
    (await rawRequest({ port, path: '/v1/history', headers: { authorization: 's3cret-token' } })).status,
    401,
  )
  t.equal(
    (await rawRequest({ port, path: '/v1/history', headers: { authorization: 'Bearer s3cret-token' } }))
      .status,
    200,
  )
  t.equal(
    (await rawRequest({ port, path: '/v1/nope', headers: { authorization: 'Bearer s3cret-token' } })).status,
    404,
  )
  t.equal(
    (await rawRequest({ port, path: '/v1/nope' })).status,
    401,
    'unauthenticated clients cannot probe paths',
  )
  t.equal((await rawRequest({ port, path: '/v1/healthz' })).status, 401, 'only the health route is open')
  t.equal(
    (await rawRequest({ port, method: 'POST', path: '/v1/health' })).status,
    401,
    'another method on the health path still needs the token',
  )
})

t.test(
  'api.token: GET /v1/health answers without the token, the Host/Origin guard still applies',
  async (t) => {
    const app = await build(t, { api: { token: 's3cret-token' } })
    const port = await listen(t, app)
    const health = await rawRequest({ port, path: '/v1/health' })
    t.equal(health.status, 200)
    t.equal(health.json.status, 'ok')
    t.same(Object.keys(health.json).sort(), ['status', 'version'], 'nothing but the status and version')
    t.equal((await rawRequest({ port, path: '/v1/health?probe=1' })).status, 200)
    t.equal((await rawRequest({ port, path: '/v1/health', headers: { host: 'evil.example' } })).status, 403)
    t.equal(
      (await rawRequest({ port, path: '/v1/health', headers: { origin: 'https://evil.example' } })).status,
      403,
    )
  },
)
