import t from 'tap'
import { readVersion } from '../../../lib/version.ts'
import { build, injectJson, tempDir } from '../../helpers/build.ts'

t.test('GET /v1/health: status ok and the package version', async (t) => {
  const app = await build(t)
  const res = await injectJson(app, 'GET', '/v1/health')
  t.equal(res.status, 200)
  t.same(res.body, { status: 'ok', version: '0.1.0' })
  t.match(res.headers['content-type'], /application\/json/)
})

t.test('version is "unknown" when package.json cannot be read', async (t) => {
  t.equal(readVersion(tempDir(t)), 'unknown')
})

t.test('only the exact path: unknown paths are 404 with the catalogue body', async (t) => {
  const app = await build(t)
  for (const url of ['/v1/health/', '/v1/healthz', '/health', '/v2/health', '/nope', '/v1/dictionary']) {
    const res = await injectJson(app, 'GET', url)
    t.equal(res.status, 404, url)
    t.same(res.body, { error: 'Route not found.', code: 'ROUTE_NOT_FOUND' })
  }
  const query = await injectJson(app, 'GET', '/v1/health?x=1')
  t.equal(query.status, 200, 'a query string does not change the path')
})

t.test('non-GET methods are 405 with Allow: GET', async (t) => {
  const app = await build(t)
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']) {
    const res = await app.inject({ method: method as 'POST', url: '/v1/health' })
    t.equal(res.statusCode, 405, method)
    t.equal(res.headers.allow, 'GET')
  }
  const put = await injectJson(app, 'PUT', '/v1/dictionary/replacements', {})
  t.equal(put.status, 405)
  t.equal(put.headers.allow, 'GET, POST')
  t.same(put.body, { error: 'Method not allowed.', code: 'METHOD_NOT_ALLOWED' })
})
