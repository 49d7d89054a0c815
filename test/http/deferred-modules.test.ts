/**
 * What `dictum serve` no longer loads before it answers (docs/benchmarks.md "Every core"): building the app
 * loads neither the OpenAPI generator, nor `ws`, nor awilix's fast-glob; each loads with the first request
 * that needs it (or the warm-up after listening), and that request is served. Swagger UI loads no module.
 * Checked in a process of its own (tap runs each file in one), through the CommonJS modules loaded.
 */

import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import http from 'node:http'
import { createRequire } from 'node:module'
import t from 'tap'
import { build } from '../helpers/build.ts'

const require = createRequire(import.meta.url)

/** Whether a CommonJS module of `pkg` has been loaded in this process. */
const loaded = (pkg: string) =>
  Object.keys(require.cache).some((file) => file.includes(`/node_modules/${pkg}/`))

t.test(
  'Swagger UI, the OpenAPI generator, ws and fast-glob load at first use, not with the app',
  async (t) => {
    const app = await build(t)
    await app.listen({ port: 0, host: '127.0.0.1' })
    for (const pkg of ['@fastify/swagger', '@fastify/swagger-ui', 'ws', 'fast-glob']) {
      t.notOk(loaded(pkg), `${pkg} is not loaded by building the app`)
    }
    // Swagger UI's page and files are files: serving them loads no module (no @fastify/swagger-ui plugin,
    // @fastify/static), and needs no document until the page asks for it. (yaml: tap itself loads it.)
    const ui = await app.inject({ method: 'GET', url: '/v1/docs/' })
    t.equal(ui.statusCode, 200)
    const css = await app.inject({ method: 'GET', url: '/v1/docs/static/swagger-ui.css' })
    t.equal(css.statusCode, 200)
    for (const pkg of ['@fastify/swagger', '@fastify/swagger-ui', '@fastify/static']) {
      t.notOk(loaded(pkg), `${pkg} is not loaded by Swagger UI's page and files`)
    }
    const doc = await app.inject({ method: 'GET', url: '/v1/openapi.json' })
    t.equal(doc.statusCode, 200)
    t.equal(doc.json().openapi, '3.1.0')
    t.ok(loaded('@fastify/swagger'), 'the first document request loaded the generator')

    const { port } = app.server.address() as { port: number }
    const upgrade = http.request({
      port,
      path: '/v1/realtime?intent=transcription',
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
      },
    })
    upgrade.end()
    const [response, socket] = (await once(upgrade, 'upgrade')) as [
      http.IncomingMessage,
      import('node:net').Socket,
    ]
    t.equal(response.statusCode, 101, 'the first upgrade is answered')
    t.ok(loaded('ws'), 'it loaded ws')
    socket.destroy()
    t.notOk(loaded('fast-glob'), 'fast-glob never')
  },
)
