/**
 * Route schemas compiled at first use (http/lazy-schema-compilers.ts): validation and response
 * serialisation behave as Fastify's own, and neither Ajv nor fast-json-stringify is loaded before a
 * request needs them.
 */
import { createRequire } from 'node:module'
import Fastify from 'fastify'
import t from 'tap'
import { lazySchemaCompilers } from '../../http/lazy-schema-compilers.ts'
import { build } from '../helpers/build.ts'

const require = createRequire(import.meta.url)

/**
 * Whether a package's main module is in Node's CommonJS module cache (loaded by anyone in this process).
 * Fastify's error serialiser loads fast-json-stringify's small runtime (`lib/serializer.js`) at import: the
 * compiler is its `index.js`.
 */
function loaded(name: string): boolean {
  return Object.keys(require.cache).some(
    (file) =>
      file.endsWith(`/node_modules/${name}/index.js`) ||
      file.endsWith(`/node_modules/${name}/dist/2020.js`) ||
      file.endsWith(`/node_modules/${name}/dist/ajv.js`),
  )
}

t.test(
  'dictum builds and gets ready without Ajv or fast-json-stringify; the first request loads them',
  async (t) => {
    const app = await build(t)
    t.notOk(loaded('ajv'), 'Ajv is not loaded at boot')
    t.notOk(loaded('fast-json-stringify'), 'fast-json-stringify is not loaded at boot')
    const health = await app.inject({ method: 'GET', url: '/v1/health' })
    t.equal(health.statusCode, 200)
    t.equal(health.json().status, 'ok')
    t.notOk(loaded('fast-json-stringify'), 'the health answer is serialised once, without a compiler')
    const engines = await app.inject({ method: 'GET', url: '/v1/engines' })
    t.equal(engines.statusCode, 200)
    t.ok(Array.isArray(engines.json().items), 'another route compiles its own schema at its first request')
    t.ok(loaded('fast-json-stringify'), 'loaded by the first response that needs a schema')
  },
)

t.test('a lazily compiled route validates and serialises as Fastify does', async (t) => {
  const app = Fastify({ schemaController: { compilersFactory: lazySchemaCompilers() as never } })
  t.teardown(() => app.close())
  app.post(
    '/sum',
    {
      schema: {
        body: {
          type: 'object',
          required: ['a', 'b'],
          properties: { a: { type: 'integer' }, b: { type: 'integer' } },
        },
        response: { 200: { type: 'object', properties: { sum: { type: 'integer' } } } },
      },
    },
    async (request) => {
      const { a, b } = request.body as { a: number; b: number }
      return { sum: a + b, secret: 'not in the schema' }
    },
  )
  await app.ready()
  const bad = await app.inject({ method: 'POST', url: '/sum', payload: { a: 'one', b: 2 } })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().message, 'body/a must be integer')
  const missing = await app.inject({ method: 'POST', url: '/sum', payload: { a: 1 } })
  t.equal(missing.statusCode, 400)
  t.match(missing.json().message, "must have required property 'b'")
  const good = await app.inject({ method: 'POST', url: '/sum', payload: { a: 1, b: 2 } })
  t.equal(good.statusCode, 200)
  t.same(good.json(), { sum: 3 }, 'the response schema drops what it does not name')
  // Coercion and defaults of Fastify's Ajv options still apply.
  const coerced = await app.inject({ method: 'POST', url: '/sum', payload: { a: '4', b: 2 } })
  t.same(coerced.json(), { sum: 6 })
})
