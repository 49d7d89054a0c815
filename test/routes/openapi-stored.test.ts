/**
 * The OpenAPI document kept in dictum's cache folder (routes/openapi/stored-document.ts): written whole by
 * the start that generated it, read by the next start with the same routes instead of generating, made
 * again when anything it is made from changed or the file is damaged, one per installed dictum, and never
 * in the way when the folder cannot be written.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { RouteOptions } from 'fastify'
import t from 'tap'
import { documentKey } from '../../routes/openapi/document.ts'
import { StoredDocument } from '../../routes/openapi/stored-document.ts'
import { build, tempDir } from '../helpers/build.ts'

const documentOf = async (app: Awaited<ReturnType<typeof build>>) => {
  const response = await app.inject({ method: 'GET', url: '/v1/openapi.json' })
  t.equal(response.statusCode, 200)
  return response.body
}

const keptFiles = (cacheDir: string) => {
  const dir = path.join(cacheDir, 'openapi')
  return existsSync(dir) ? readdirSync(dir).sort() : []
}

t.test('a start keeps the document it generated, and the next start reads it', async (t) => {
  const cacheDir = tempDir(t, 'dictum-openapi-cache-')
  const first = await build(t, {}, { cacheDir })
  const generated = await documentOf(first)
  const files = keptFiles(cacheDir)
  t.equal(files.length, 1, 'one document kept')
  t.match(files[0], /^[0-9a-f]{12}-[0-9a-f]{32}\.json$/, 'named by its install and its key')
  const file = path.join(cacheDir, 'openapi', files[0] as string)
  t.equal(readFileSync(file, 'utf8'), generated, 'the document as served, whole')

  // Marked, so that serving it proves it was read and not generated again.
  const marked = JSON.stringify({ ...JSON.parse(generated), 'x-kept': true })
  writeFileSync(file, marked)
  const second = await build(t, {}, { cacheDir })
  t.equal(await documentOf(second), marked, 'the next start with the same routes reads the kept one')
  const ui = await second.inject({ method: 'GET', url: '/v1/docs/json' })
  t.equal(ui.body, marked, "and Swagger UI's document is the same")

  const uncached = await build(t)
  t.equal(await documentOf(uncached), generated, 'an app given no cache folder generates it')
})

t.test('a damaged document is made again and replaced', async (t) => {
  const cacheDir = tempDir(t, 'dictum-openapi-cache-')
  const generated = await documentOf(await build(t, {}, { cacheDir }))
  const [name] = keptFiles(cacheDir)
  const file = path.join(cacheDir, 'openapi', name as string)
  for (const damage of [generated.slice(0, 1000), '', '[1,2]', 'null']) {
    writeFileSync(file, damage)
    t.equal(
      await documentOf(await build(t, {}, { cacheDir })),
      generated,
      `${JSON.stringify(damage.slice(0, 12))}: generated`,
    )
    t.equal(readFileSync(file, 'utf8'), generated, 'and written again')
  }
})

t.test('a cache folder that cannot be written costs nothing', async (t) => {
  const parent = tempDir(t, 'dictum-openapi-cache-')
  const cacheDir = path.join(parent, 'a-file')
  writeFileSync(cacheDir, 'not a folder')
  const app = await build(t, {}, { cacheDir })
  const document = JSON.parse(await documentOf(app))
  t.equal(document.openapi, '3.1.0', 'the document is served')
  t.same(readdirSync(parent), ['a-file'], 'and nothing was written')
})

t.test('writing a document removes the same install’s older ones, not another install’s', async (t) => {
  const cacheDir = tempDir(t, 'dictum-openapi-cache-')
  const here = new StoredDocument(cacheDir, '/opt/dictum-a')
  const there = new StoredDocument(cacheDir, '/opt/dictum-b')
  t.ok(here.write('k1', '{"v":1}'))
  t.ok(there.write('k1', '{"v":"b"}'))
  t.ok(here.write('k2', '{"v":2}'))
  t.equal(here.read('k1'), null, 'the older document of this install is gone')
  t.equal(here.read('k2'), '{"v":2}')
  t.equal(there.read('k1'), '{"v":"b"}', "another install's is kept")
  t.equal(keptFiles(cacheDir).length, 2)
})

t.test('the key changes with what the document is made from, and only with that', async (t) => {
  const route = (overrides: Partial<RouteOptions> = {}): RouteOptions =>
    ({
      method: 'GET',
      url: '/v1/thing',
      schema: { querystring: { type: 'object', properties: { q: { type: 'string' } } } },
      config: { doc: { summary: 'A thing.', errors: [400] } },
      handler: async () => ({}),
      ...overrides,
    }) as RouteOptions
  const base = documentKey([route()])
  t.match(base, /^[0-9a-f]{32}$/)
  t.equal(documentKey([route({ handler: async () => ({ other: true }) })]), base, 'not the handler')
  const changed: Record<string, RouteOptions[]> = {
    'another method': [route({ method: 'POST' })],
    'another URL': [route({ url: '/v1/other' })],
    'another schema': [
      route({ schema: { querystring: { type: 'object', properties: { r: { type: 'string' } } } } }),
    ],
    'another summary': [route({ config: { doc: { summary: 'Another thing.', errors: [400] } } })],
    'other error statuses': [route({ config: { doc: { summary: 'A thing.', errors: [400, 404] } } })],
    'one route more': [route(), route({ url: '/v1/more' })],
  }
  for (const [what, routes] of Object.entries(changed)) t.not(documentKey(routes), base, what)
})
