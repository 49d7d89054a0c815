/**
 * Section `web`: the web app in headless Chromium (Debian's, as the browser tests drive it). Figures: what the
 * page transfers (its JS and CSS, gzip as dictum sends them, and the HTML), and the time from navigation until
 * the page is interactive (the Dictate view rendered with its record button enabled), cold (a fresh browser
 * context: nothing cached) and warm (the same tab again: files cached, index.html revalidated), against a
 * blank page from a loopback server until its load event, in the same tab first, rounds interleaved in the
 * same run.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import puppeteer, { type Browser } from 'puppeteer-core'
import { resolveConfig } from '../config/load.ts'
import { buildApp } from '../server/app.ts'
import { ConfigSchema } from '../server/config-schema.ts'
import { median, round } from './lib/load.ts'

const ROUNDS = 10
const CHROMIUM = '/usr/bin/chromium'

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  await run()
  return performance.now() - started
}

export async function benchWeb(): Promise<Record<string, number | string>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-bench-web-'))
  const app = await buildApp(
    resolveConfig(ConfigSchema, { dataDir: path.join(dir, 'data'), log: { level: 'silent' } }),
    {
      logger: false,
    },
  )
  await app.listen({ host: '127.0.0.1', port: 0 })
  const dictum = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/`
  const blankServer = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>blank</title>')
  })
  await new Promise<void>((resolve) => blankServer.listen(0, '127.0.0.1', resolve))
  const blank = `http://127.0.0.1:${(blankServer.address() as AddressInfo).port}/`
  let browser: Browser | undefined
  try {
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      args: [
        ...['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
        ...['--disable-background-networking', '--disable-component-update', '--disable-sync'],
        `--user-data-dir=${path.join(dir, 'profile')}`,
      ],
    })

    // What the page transfers: every response of a cold load, as Chromium counted it (bodies as sent).
    const context = await browser.createBrowserContext()
    const page = await context.newPage()
    const cdp = await page.createCDPSession()
    await cdp.send('Network.enable')
    const types = new Map<string, string>()
    const bodies = { js: 0, css: 0, html: 0, other: 0 }
    let wire = 0
    cdp.on('Network.responseReceived', (e) => types.set(e.requestId, e.response.mimeType))
    cdp.on('Network.loadingFinished', (e) => {
      wire += e.encodedDataLength
      const type = types.get(e.requestId) ?? ''
      const kind = type.includes('javascript')
        ? 'js'
        : type.includes('css')
          ? 'css'
          : type.includes('html')
            ? 'html'
            : 'other'
      bodies[kind] += e.encodedDataLength
    })
    await page.goto(dictum)
    await page.waitForSelector('#record:not([disabled])')
    await context.close()
    const sizes = await gzipSizes(dictum)

    const cold: number[] = []
    const warm: number[] = []
    const blankMs: number[] = []
    for (let i = 0; i < ROUNDS; i++) {
      const fresh = await browser.createBrowserContext()
      const p = await fresh.newPage()
      blankMs.push(await timed(() => p.goto(blank, { waitUntil: 'load' })))
      cold.push(
        await timed(async () => {
          await p.goto(dictum)
          await p.waitForSelector('#record:not([disabled])')
        }),
      )
      // The same tab again (its renderer already running, as for the cold load after the blank page).
      await p.goto(blank)
      warm.push(
        await timed(async () => {
          await p.goto(dictum)
          await p.waitForSelector('#record:not([disabled])')
        }),
      )
      await fresh.close()
    }
    return {
      'JS + CSS, gzip bodies, bytes': sizes.jsCss,
      'of which Preact + hooks + htm, bytes': sizes.vendor,
      'index.html, gzip body, bytes': sizes.html,
      'every response of a cold load as Chromium counted it (headers included), bytes': wire,
      'of which JS / CSS / HTML / other': `${bodies.js} / ${bodies.css} / ${bodies.html} / ${bodies.other}`,
      'blank page until load ms, median': round(median(blankMs), 1),
      'dictum page until interactive, cold ms, median': round(median(cold), 1),
      'dictum page until interactive, warm ms, median': round(median(warm), 1),
      'cold / blank': round(median(cold) / median(blankMs), 1),
      rounds: ROUNDS,
    }
  } finally {
    await browser?.close()
    await new Promise<void>((resolve) => blankServer.close(() => resolve()))
    await app.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Gzip body sizes of the page's files, as dictum sends them to a browser. */
async function gzipSizes(dictum: string) {
  const get = async (url: string) => {
    const response = await fetch(url, { headers: { 'accept-encoding': 'gzip' } })
    // fetch decodes gzip: the sent size is the Content-Length, or the decoded body when it has none.
    const length = Number(response.headers.get('content-length'))
    const text = await response.text()
    return { text, size: length > 0 ? length : Buffer.byteLength(text) }
  }
  const index = await get(dictum)
  const base = /href="(\/app\/[0-9a-f]+)\/style\.css"/.exec(index.text)?.[1]
  if (!base) throw new Error('the page names no stylesheet')
  const visited = new Set<string>()
  let jsCss = 0
  let vendor = 0
  // The module graph: main.js, its relative imports, and the import map's files.
  const queue = [
    'style.css',
    'main.js',
    'vendor/preact.mjs',
    'vendor/hooks.mjs',
    'vendor/htm.mjs',
    'lib/pcm-worklet.js',
  ]
  while (queue.length > 0) {
    const file = queue.shift() as string
    if (visited.has(file)) continue
    visited.add(file)
    const { text, size } = await get(`${dictum.replace(/\/$/, '')}${base}/${file}`)
    jsCss += size
    if (file.startsWith('vendor/')) vendor += size
    for (const [, relative] of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
      queue.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), relative as string)))
    }
  }
  return { jsCss, vendor, html: index.size }
}
