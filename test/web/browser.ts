/**
 * Browser tests' common parts: Debian's Chromium driven headless by puppeteer-core (installed by
 * scripts/setup.sh; the tests skip, saying so, only where /usr/bin/chromium is absent), a page that records
 * what went wrong in it (script errors, refused resources, CSP violations), axe-core run inside a page, and
 * screenshots of a view in the light and the dark theme under test/web/.screenshots/ (ignored by git).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import type { Test } from 'tap'
import { tempDir } from '../helpers/build.ts'

export const CHROMIUM = '/usr/bin/chromium'

/** False, or why the browser tests cannot run here. */
export const noBrowser = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is not installed (scripts/setup.sh installs Debian's chromium)`

export const SCREENSHOTS = path.join(import.meta.dirname, '.screenshots')

/** Headless Chromium with a fresh profile, closed on teardown. */
export async function launch(t: Test, extraArgs: string[] = []): Promise<Browser> {
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${tempDir(t, 'dictum-chromium-')}`,
      ...extraArgs,
    ],
  })
  t.teardown(() => browser.close())
  return browser
}

export interface WatchedPage {
  page: Page
  /** Script errors, console errors and failed requests of the page, as text. */
  problems: string[]
}

/**
 * A new page that records its problems. `expected` matches console errors the test causes on purpose (a
 * refused request the page reports).
 */
export async function watchedPage(browser: Browser, expected: RegExp[] = []): Promise<WatchedPage> {
  const page = await browser.newPage()
  await page.setViewport({ width: 1100, height: 850 })
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(`page error: ${(error as Error).message}`))
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    const text = `${message.text()} ${message.location().url ?? ''}`
    if (!expected.some((e) => e.test(text))) problems.push(`console error: ${text}`)
  })
  page.on('requestfailed', (request) => {
    const text = `${request.url()} ${request.failure()?.errorText}`
    if (!expected.some((e) => e.test(text))) problems.push(`request failed: ${text}`)
  })
  return { page, problems }
}

const AXE = readFileSync(path.join(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'), 'utf8')

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  targets: string[]
}

/**
 * axe-core's violations on the page as it is. axe is evaluated through the DevTools protocol, which the
 * page's CSP does not govern, so the page keeps its policy during the scan.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE)
  return page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is a global the evaluated script defines
    const axe = (globalThis as any).axe
    const result = await axe.run({ exclude: [] }, { resultTypes: ['violations'] })
    return result.violations.map(
      (v: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.map((n) => n.target.join(' ')),
      }),
    )
  })
}

/** Saves the page in the light and the dark theme as `<name>-light.png` and `<name>-dark.png`. */
export async function screenshots(page: Page, name: string): Promise<string[]> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  const saved: string[] = []
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: theme }])
    const file = path.join(SCREENSHOTS, `${name}-${theme}.png`)
    await page.screenshot({ path: file as `${string}.png`, fullPage: true })
    saved.push(file)
  }
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }])
  return saved
}

/** Text content of the first element matching `selector`. */
export function textOf(page: Page, selector: string): Promise<string> {
  return page.$eval(selector, (e) => (e.textContent ?? '').trim())
}
