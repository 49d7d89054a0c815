/**
 * The OpenAPI document: valid OpenAPI 3.1 by a real validator, every route in it with a summary and its
 * error responses, the OpenAI-compatible routes with OpenAI's field names, Swagger UI served, all behind the
 * guard and the token like every other route.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { Validator } from '@seriousme/openapi-schema-validator'
import t from 'tap'
import { SwaggerUi } from '../../routes/openapi/swagger-ui.ts'
import { build, injectJson, tempDir } from '../helpers/build.ts'

// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON
type Json = any

t.test('GET /v1/openapi.json is a valid OpenAPI 3.1 document of every route', async (t) => {
  const app = await build(t)
  const response = await injectJson(app, 'GET', '/v1/openapi.json')
  t.equal(response.status, 200)
  const doc: Json = response.body
  t.equal(doc.openapi, '3.1.0')
  const result = await new Validator().validate(doc)
  t.same(result, { valid: true }, 'valid by @seriousme/openapi-schema-validator')

  const operations = Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(
    ([url, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${url}`, op })),
  )
  t.same(
    operations.map((o) => o.key).sort(),
    [
      'DELETE /v1/dictionary/custom-words/{id}',
      'DELETE /v1/dictionary/replacements/{id}',
      'DELETE /v1/history',
      'DELETE /v1/history/{id}',
      'DELETE /v1/jobs/{id}',
      'GET /v1/dictionary/custom-words',
      'GET /v1/dictionary/replacements',
      'GET /v1/dictionary/suggestions',
      'GET /v1/engines',
      'GET /v1/health',
      'GET /v1/history',
      'GET /v1/history/export',
      'GET /v1/history/{id}/audio',
      'GET /v1/jobs',
      'GET /v1/jobs/workers',
      'GET /v1/jobs/{id}',
      'GET /v1/jobs/{id}/events',
      'GET /v1/jobs/{id}/result/{format}',
      'GET /v1/models',
      'GET /v1/models/{id}',
      'GET /v1/openapi.json',
      'GET /v1/settings',
      'PATCH /v1/dictionary/custom-words/{id}',
      'PATCH /v1/dictionary/replacements/{id}',
      'PATCH /v1/settings',
      'POST /v1/audio/transcriptions',
      'POST /v1/audio/translations',
      'POST /v1/dictate',
      'POST /v1/dictionary/custom-words',
      'POST /v1/dictionary/replacements',
      'POST /v1/dictionary/suggestions/{id}/accept',
      'POST /v1/dictionary/suggestions/{id}/dismiss',
      'POST /v1/dictionary/suggestions/{id}/replay',
      'POST /v1/history/{id}/correction',
      'POST /v1/jobs',
      'POST /v1/models/{id}/pull',
      'POST /v1/postprocess',
      'POST /v1/transcribe',
    ],
    'every route of the API, and nothing else (Swagger UI hides its own)',
  )
  for (const { key, op } of operations) {
    t.ok(op.summary, `${key} has a summary`)
    t.ok(op.responses['200'], `${key} documents its success`)
    const errors = Object.keys(op.responses).filter(
      (status) => status.startsWith('4') || status.startsWith('5'),
    )
    t.ok(errors.length > 0, `${key} documents its errors (${errors.join(', ')})`)
    for (const status of errors) {
      const schema = op.responses[status].content?.['application/json']?.schema
      t.ok(schema?.properties?.error, `${key} ${status} has an error body`)
    }
    if (key !== 'GET /v1/health') t.ok(op.responses['403'], `${key}: the Host/Origin guard`)
  }
  t.same(doc.paths['/v1/health'].get.security, [], 'health needs no token')

  const transcribe = doc.paths['/v1/transcribe'].post
  t.same(
    Object.keys(transcribe.requestBody.content).sort(),
    ['application/json', 'application/octet-stream', 'audio/*'],
    'the three input modes',
  )
  t.ok(transcribe.responses['503'] && transcribe.responses['504'] && transcribe.responses['413'])
})

t.test("the OpenAI-compatible routes use OpenAI's field names", async (t) => {
  const app = await build(t)
  const doc: Json = (await injectJson(app, 'GET', '/v1/openapi.json')).body
  const op = doc.paths['/v1/audio/transcriptions'].post
  const form = op.requestBody.content['multipart/form-data'].schema
  t.same(Object.keys(form.properties).sort(), [
    'chunking_strategy',
    'file',
    'include[]',
    'keywords[]',
    'language',
    'languages[]',
    'model',
    'prompt',
    'response_format',
    'stream',
    'temperature',
    'timestamp_granularities[]',
  ])
  t.same([...form.required].sort(), ['file', 'model'])
  const json = op.responses['200'].content['application/json'].schema
  const variants: Json[] = json.anyOf ?? [json]
  t.ok(
    variants.some((v) => v.properties?.text && !v.properties?.segments),
    'json: text',
  )
  const verbose = variants.find((v) => v.properties?.segments)
  t.same(
    ['duration', 'language', 'segments', 'text', 'words'].filter((k) => verbose?.properties?.[k]),
    ['duration', 'language', 'segments', 'text', 'words'],
    'verbose_json: text, language, duration, segments, words',
  )
  t.ok(verbose?.properties.segments.items.properties.avg_logprob, 'segments carry avg_logprob')
  for (const type of ['text/plain', 'text/vtt', 'application/x-subrip'])
    t.ok(op.responses['200'].content[type], `${type} for the text formats`)
  t.ok(
    op.responses['400'].content['application/json'].schema.properties.error.properties.message,
    "OpenAI's error",
  )
  const models = doc.paths['/v1/models'].get.responses['200'].content['application/json'].schema
  t.equal(models.properties.object.const ?? models.properties.object.enum?.[0], 'list')
  t.same(
    ['created', 'id', 'object', 'owned_by'].filter((k) => models.properties.data.items.properties[k]),
    ['created', 'id', 'object', 'owned_by'],
  )
})

t.test('Swagger UI at /v1/docs, and the token guards the document', async (t) => {
  const app = await build(t, { api: { token: 'doc-token' } })
  const ui = await app.inject({
    method: 'GET',
    url: '/v1/docs/',
    headers: { authorization: 'Bearer doc-token' },
  })
  t.equal(ui.statusCode, 200)
  t.match(ui.headers['content-type'], /text\/html/)
  t.match(ui.body, /swagger/i)
  t.equal((await injectJson(app, 'GET', '/v1/openapi.json')).status, 401, 'the document needs the token')
  t.equal((await injectJson(app, 'GET', '/v1/docs/')).status, 401, 'so does the UI')
  const foreign = await injectJson(app, 'GET', '/v1/openapi.json', undefined, {
    host: 'evil.example',
    authorization: 'Bearer doc-token',
  })
  t.equal(foreign.status, 403, 'and the Host guard')
})

t.test("Swagger UI's files, its redirects and unknown paths, as the first requests of an app", async (t) => {
  // The document and Swagger UI come from an app built at the first request that needs them (or after
  // listening): each request here may be the one that builds it.
  const app = await build(t)
  const [css, page] = await Promise.all([
    app.inject({ method: 'GET', url: '/v1/docs/static/swagger-ui.css' }),
    app.inject({ method: 'GET', url: '/v1/docs' }),
  ])
  t.equal(css.statusCode, 200)
  t.match(css.headers['content-type'], /text\/css/)
  t.ok(css.rawPayload.length > 10_000, 'the whole stylesheet')
  t.equal(page.statusCode, 200)
  t.match(page.body, /swagger-ui/)
  t.match(page.headers['content-security-policy'], /script-src/, "Swagger UI's own policy")
  const again = await app.inject({
    method: 'GET',
    url: '/v1/docs/static/swagger-ui.css',
    headers: { 'if-none-match': String(css.headers.etag) },
  })
  t.equal(again.statusCode, 304, 'revalidated by its ETag')
  const index = await app.inject({ method: 'GET', url: '/v1/docs/static/index.html' })
  t.equal(index.statusCode, 302)
  t.equal(index.headers.location, '/v1/docs/')
  const missing = await injectJson(app, 'GET', '/v1/docs/static/no-such-file.js')
  t.equal(missing.status, 404)
  t.same(missing.body, { error: 'Route not found.', code: 'ROUTE_NOT_FOUND' })
  // A path no file can have (the fuzz test found it: Fastify's own 400 body came through, without a code).
  const nul = await injectJson(app, 'GET', '/v1/docs/static/index.html%00')
  t.equal(nul.status, 404)
  t.same(nul.body, { error: 'Route not found.', code: 'ROUTE_NOT_FOUND' }, "a NUL in the path: dictum's 404")
  const post = await app.inject({ method: 'POST', url: '/v1/docs' })
  t.equal(post.statusCode, 405)
  t.equal(post.headers.allow, 'GET')
  const json = await injectJson(app, 'GET', '/v1/docs/json')
  t.same(json.body, (await injectJson(app, 'GET', '/v1/openapi.json')).body, 'the same document')
})

t.test("Swagger UI's files: the distribution's, but its page and start script are ours", async (t) => {
  const dir = tempDir(t)
  writeFileSync(path.join(dir, 'index.html'), "the distribution's page")
  writeFileSync(path.join(dir, 'swagger-initializer.js'), "the distribution's start script")
  writeFileSync(path.join(dir, 'swagger-ui.css'), 'body {}')
  const ui = new SwaggerUi(dir)
  t.match(ui.page.body.toString(), /<div id="swagger-ui">/, 'our page')
  t.equal(ui.page, ui.page, 'made once')
  t.equal(ui.file('index.html'), null, "the distribution's page is not a file, even once ours was served")
  t.match(ui.file('swagger-initializer.js')?.body.toString(), /SwaggerUIBundle/, 'our start script')
  t.equal(ui.file('swagger-ui.css')?.body.toString(), 'body {}')
  t.equal(ui.file('../package.json'), null)
})
