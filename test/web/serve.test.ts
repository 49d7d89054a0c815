/**
 * The web app's files as HTTP serves them (issue 14 items 7, 8), over real HTTP on loopback, no browser: the
 * page at / with its Content-Security-Policy (the inline import map's hash in it, the WebSocket of the same
 * host), every file the page names served by dictum from memory (Preact and htm byte for byte from their
 * installed packages), gzip, ETags and cache headers; the API's Host/Origin guard in front, but no token for
 * these files while the API still needs it; `web.enabled: false` answers 404, applied live; `dictum serve`
 * logs the page's URL (a process's log on a pipe is JSON lines: test/process/log-output.test.ts).
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import t from 'tap'
import { resolveConfig } from '../../config/load.ts'
import { ConfigSchema } from '../../server/config-schema.ts'
import { build } from '../helpers/build.ts'
import { listen, rawRequest } from '../helpers/http.ts'
import { logCapture } from '../helpers/log-capture.ts'
import { serveInProcess } from '../helpers/serve.ts'

/** The body's bytes as sent (rawRequest decodes text). */
function getBytes(port: number, urlPath: string, headers: Record<string, string>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: urlPath, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve(Buffer.concat(chunks)))
    })
      .on('error', reject)
      .end()
  })
}

function get(port: number, urlPath: string, headers: Record<string, string> = {}) {
  return rawRequest({ port, path: urlPath, headers: { host: `127.0.0.1:${port}`, ...headers } })
}

/** The files index.html names: stylesheet, icon, module script, and the import map's targets. */
function namedFiles(html: string): { files: string[]; importMap: string } {
  const importMap = /<script type="importmap">([^<]*)<\/script>/.exec(html)?.[1] ?? ''
  const attributes = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1] as string)
  const imports = Object.values((JSON.parse(importMap) as { imports: Record<string, string> }).imports)
  return { files: [...attributes, ...imports], importMap }
}

t.test('GET / is the page, with a strict policy naming its import map and this host', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const page = await get(port, '/')
  t.equal(page.status, 200)
  t.match(page.headers['content-type'], /^text\/html; charset=utf-8/)
  t.equal(page.headers['cache-control'], 'no-cache', 'revalidated: it names the current files')
  const { importMap } = namedFiles(page.text)
  t.ok(importMap.length > 0, 'an import map')
  const hash = createHash('sha256').update(importMap).digest('base64')
  t.equal(
    page.headers['content-security-policy'],
    [
      "default-src 'self'",
      `script-src 'self' 'sha256-${hash}'`,
      "style-src 'self'",
      "img-src 'self' data:",
      "media-src 'self' blob:",
      `connect-src 'self' ws://127.0.0.1:${port}`,
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  )
  t.equal(page.headers['x-frame-options'], 'DENY')
  t.equal(page.headers['x-content-type-options'], 'nosniff')
  t.equal(page.headers['referrer-policy'], 'no-referrer')
  t.notMatch(page.text, /<script(?![^>]*type="(module|importmap)")/, 'no classic scripts')
  t.notMatch(page.text, /\son\w+=/i, 'no inline handlers')
  t.notMatch(page.text, /https?:\/\//, 'nothing from another host')

  // The guard lets this Host through (its name is localhost), but it is not written into the policy.
  const odd = await rawRequest({ port, path: '/', headers: { host: 'localhost:1; script-src *' } })
  t.equal(odd.status, 200)
  t.match(odd.headers['content-security-policy'], "connect-src 'self';", 'a Host that is not a plain name')
  t.notMatch(odd.headers['content-security-policy'], 'script-src *')
})

t.test('every file the page names is served from memory, cached for good, gzip when asked', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const { files } = namedFiles((await get(port, '/')).text)
  t.ok(files.length >= 6, `the page names ${files.length} files`)
  const version = /^\/app\/([0-9a-f]{12})\//.exec(files[0] as string)?.[1]
  t.ok(version, 'under /app/<version>/')
  for (const file of files) {
    t.match(file, `/app/${version}/`, `${file} is one of dictum's`)
    const response = await get(port, file)
    t.equal(response.status, 200, file)
    t.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable', `${file}: cached`)
    t.match(response.headers['content-type'], /^(text\/(javascript|css)|image\/svg\+xml)/, file)
    t.ok(response.headers.etag, `${file}: an ETag`)
  }
  // The main script's own imports resolve under the same version (relative imports).
  const main = await get(port, `/app/${version}/main.js`)
  for (const [, relative] of main.text.matchAll(/from '(\.\/[^']+)'/g)) {
    const response = await get(port, `/app/${version}/${(relative as string).slice(2)}`)
    t.equal(response.status, 200, `main.js imports ${relative}`)
  }
  const worklet = await get(port, `/app/${version}/lib/pcm-worklet.js`)
  t.match(worklet.text, "registerProcessor('pcm16-writer'", 'the AudioWorklet is a file of its own')

  // Preact and htm as installed, byte for byte.
  for (const [specifier, file] of [
    ['preact', 'vendor/preact.mjs'],
    ['preact/hooks', 'vendor/hooks.mjs'],
    ['htm', 'vendor/htm.mjs'],
  ] as const) {
    const installed = readFileSync(fileURLToPath(import.meta.resolve(specifier)), 'utf8')
    t.equal(
      (await get(port, `/app/${version}/${file}`)).text,
      installed,
      `${specifier} is the installed file`,
    )
  }

  const plain = await get(port, `/app/${version}/main.js`)
  const gzipped = await rawRequest({
    port,
    path: `/app/${version}/main.js`,
    headers: { host: `127.0.0.1:${port}`, 'accept-encoding': 'gzip, deflate, br' },
  })
  t.equal(gzipped.headers['content-encoding'], 'gzip')
  t.equal(gzipped.headers.vary, 'Accept-Encoding')
  const raw = await getBytes(port, `/app/${version}/main.js`, { 'accept-encoding': 'gzip' })
  t.equal(gunzipSync(raw).toString('utf8'), plain.text, 'the gzip body is the file')
  t.ok(raw.length < Buffer.byteLength(plain.text), 'and smaller')

  const again = await get(port, `/app/${version}/main.js`, { 'if-none-match': plain.headers.etag as string })
  t.equal(again.status, 304, 'a revalidation with the ETag: 304')
  t.equal(again.text, '')

  const old = await get(port, '/app/000000000000/main.js')
  t.equal(old.status, 404, 'another version: 404')
  t.same(old.json, { error: 'Route not found.', code: 'ROUTE_NOT_FOUND' })
  t.equal((await get(port, `/app/${version}/../package.json`)).status, 404, 'no path outside the table')
  t.equal((await get(port, `/app/${version}/lib/`)).status, 404)
})

t.test(
  'the guard: loopback Host and Origin only; no token for the files, the API still needs it',
  async (t) => {
    const app = await build(t, { api: { token: 'secret-token' } })
    const port = await listen(t, app)
    const page = await get(port, '/')
    t.equal(page.status, 200, 'the page opens without the token')
    const { files } = namedFiles(page.text)
    t.equal((await get(port, files[0] as string)).status, 200, 'and its files')
    t.equal((await get(port, '/v1/engines')).status, 401, 'the API does not')
    t.equal((await get(port, '/v1/engines', { authorization: 'Bearer secret-token' })).status, 200)
    t.equal((await get(port, '/', { host: 'evil.example:80' })).status, 403, 'a foreign Host (DNS rebinding)')
    t.equal((await get(port, '/', { origin: 'http://evil.example' })).status, 403, 'a foreign Origin')
    const post = await rawRequest({ port, method: 'POST', path: '/', headers: { host: `127.0.0.1:${port}` } })
    t.equal(post.status, 401, 'only GETs of the files go without the token')
  },
)

t.test('web.enabled: false answers 404, applied live', async (t) => {
  const app = await build(t, { web: { enabled: false } })
  const port = await listen(t, app)
  const off = await get(port, '/')
  t.equal(off.status, 404)
  t.same(off.json, { error: 'Route not found.', code: 'ROUTE_NOT_FOUND' })
  const store = app.dictum.configStore
  await store.update(
    resolveConfig(ConfigSchema, { ...structuredClone(store.current), web: { enabled: true } }),
  )
  const on = await get(port, '/')
  t.equal(on.status, 200, 'on after a config edit')
  const file = namedFiles(on.text).files[0] as string
  await store.update(
    resolveConfig(ConfigSchema, { ...structuredClone(store.current), web: { enabled: false } }),
  )
  t.equal((await get(port, '/')).status, 404, 'off again')
  t.equal((await get(port, file)).status, 404, 'its files too')
  t.equal((await get(port, '/v1/health')).status, 200, 'the API stays')
})

t.test('dictum serve logs the page URL', async (t) => {
  const { logger, lines } = logCapture('info')
  const { port } = await serveInProcess(t, {}, { logger })
  const line = lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('dictum web app'))
  t.same(line && { msg: line.msg, url: line.url }, {
    msg: `dictum web app: http://127.0.0.1:${port}/`,
    url: `http://127.0.0.1:${port}/`,
  })
})
