/**
 * A page of another site cannot read or change anything in dictum (issue 14, Must show). A second HTTP server
 * on another port serves a hostile page; Chromium reaches it as http://evil.test:<port> (a host resolver rule
 * maps the name to 127.0.0.1, so the site is foreign to dictum's guard while nothing leaves the machine). The
 * page tries to read the history and the dictionary, to add a rule with a "simple" request (no preflight),
 * to delete the history, to open the realtime WebSocket and to frame dictum's page; and, as DNS rebinding
 * would, to load dictum's page under its own name. Each fails, dictum's data is unchanged, and dictum did
 * refuse the requests that reached it (403). The same probes from dictum's own page succeed, so they would
 * have worked if the guard let them.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import type { Page } from 'puppeteer-core'
import t from 'tap'
import { build } from '../helpers/build.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'
import { listen } from '../helpers/http.ts'
import { launch, noBrowser, watchedPage } from '../web/browser.ts'

/** The probes, run inside a page: what each attempt got. */
const PROBES = `(async (dictum) => {
  const result = {}
  const attempt = async (name, run) => {
    try { result[name] = await run() } catch (error) { result[name] = 'failed: ' + error.name }
  }
  await attempt('readHistory', async () => (await (await fetch(dictum + '/v1/history')).json()).count)
  await attempt('readDictionary', async () => (await (await fetch(dictum + '/v1/dictionary/replacements')).json()).count)
  await attempt('addRule', async () => {
    const response = await fetch(dictum + '/v1/dictionary/replacements', {
      method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ triggers: ['pwned'], replacement: 'PWNED' }),
    })
    return response.type === 'opaque' ? 'opaque' : response.status
  })
  await attempt('deleteHistory', async () => (await fetch(dictum + '/v1/history?confirm=true', { method: 'DELETE' })).status)
  await attempt('websocket', () => new Promise((resolve) => {
    const ws = new WebSocket(dictum.replace('http', 'ws') + '/v1/realtime?intent=transcription', ['realtime'])
    ws.onmessage = (event) => { resolve('message: ' + JSON.parse(event.data).type); ws.close() }
    ws.onclose = (event) => resolve('closed ' + event.code)
  }))
  return result
})`

function probe(page: Page, dictum: string) {
  return page.evaluate(`${PROBES}(${JSON.stringify(dictum)})`) as Promise<Record<string, unknown>>
}

t.test('a foreign page cannot read or change anything', { skip: noBrowser }, async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const dictum = `http://127.0.0.1:${port}`
  const seen: { path: string; origin: string | undefined; host: string | undefined; status: number }[] = []
  app.server.prependListener('request', (request, response) => {
    response.once('finish', () =>
      seen.push({
        path: request.url ?? '',
        origin: request.headers.origin,
        host: request.headers.host,
        status: response.statusCode,
      }),
    )
  })
  // Something to read and to lose.
  await fetch(`${dictum}/v1/dictionary/replacements`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ triggers: ['open ai'], replacement: 'OpenAI' }),
  })
  await fetch(`${dictum}/v1/dictate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path: path.join(audioFixturesDir, 'goforward.wav') }),
  })
  const before = await state(dictum)
  t.equal(before.history, 1)

  const evil = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end(`<!doctype html><title>evil</title><iframe id="frame" src="${dictum}/"></iframe>`)
  })
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => evil.close(() => resolve())))
  const evilPort = (evil.address() as AddressInfo).port

  const browser = await launch(t, ['--host-resolver-rules=MAP evil.test 127.0.0.1'])
  const { page } = await watchedPage(browser)
  await page.goto(`http://evil.test:${evilPort}/`)
  const results = await probe(page, dictum)
  t.same(
    results,
    {
      readHistory: 'failed: TypeError',
      readDictionary: 'failed: TypeError',
      addRule: 'opaque',
      deleteHistory: 'failed: TypeError',
      websocket: 'closed 1006',
    },
    'every read fails, the write is sent blind, the WebSocket never opens',
  )
  const frame = page.frames().find((f) => f !== page.mainFrame())
  const framed = await frame?.evaluate('document.querySelector("#app") !== null').catch(() => false)
  t.equal(
    framed ?? false,
    false,
    'dictum’s page does not load in its frame (frame-ancestors, X-Frame-Options)',
  )

  t.same(await state(dictum), before, 'nothing changed')
  const foreign = seen.filter((r) => r.origin === `http://evil.test:${evilPort}`)
  t.ok(foreign.length >= 3, `${foreign.length} of its requests reached dictum`)
  t.ok(
    foreign.every((r) => r.status === 403),
    `dictum refused each: ${JSON.stringify(foreign.map((r) => `${r.path} ${r.status}`))}`,
  )

  // DNS rebinding: dictum's own page and API under the foreign name.
  const rebound = await page.goto(`http://evil.test:${port}/`)
  t.equal(rebound?.status(), 403, 'dictum’s page under a foreign Host name: 403')
  const reboundProbes = await probe(page, `http://evil.test:${port}`)
  t.equal(reboundProbes.readHistory, undefined, 'the 403 body has no count')
  t.same(await state(dictum), before, 'still nothing changed')

  // The same probes from dictum's own page work: the guard is what stopped them.
  await page.goto(`${dictum}/`)
  const own = await probe(page, dictum)
  t.equal(own.readHistory, 1, 'dictum’s own page reads the history')
  t.equal(own.readDictionary, 1)
  t.equal(own.websocket, 'message: session.created', 'and opens the WebSocket')
})

async function state(dictum: string) {
  const history = (await (await fetch(`${dictum}/v1/history`)).json()) as { count: number }
  const rules = (await (await fetch(`${dictum}/v1/dictionary/replacements`)).json()) as { items: unknown[] }
  return { history: history.count, rules: rules.items }
}
