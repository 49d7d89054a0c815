/**
 * The page in Firefox (issue 14: "works with JavaScript modules in current Chromium and Firefox"): Debian's
 * firefox-esr driven headless by puppeteer-core over WebDriver BiDi. The page loads under its CSP (the import
 * map, Preact and htm as modules), every view renders its main control, a dictionary rule added in the page
 * reaches the API, and nothing goes wrong in the page (script errors, refused resources).
 */
import { existsSync } from 'node:fs'
import puppeteer from 'puppeteer-core'
import t from 'tap'
import { build, tempDir } from '../helpers/build.ts'
import { listen } from '../helpers/http.ts'

const FIREFOX = '/usr/bin/firefox-esr'
const skip = existsSync(FIREFOX)
  ? false
  : `${FIREFOX} is not installed (scripts/setup.sh installs Debian's firefox-esr)`

/** Each view and a control it renders once its module has run. */
const VIEWS: [string, string][] = [
  ['dictate', '#record'],
  ['files', 'input[type="file"]'],
  ['history', '#history-q'],
  ['dictionary', '#add-rules-triggers'],
  ['engines', 'table'],
]

t.test(
  'the web app in Firefox: modules under the CSP, every view, an edit through the API',
  { skip, timeout: 120_000 },
  async (t) => {
    const app = await build(t)
    const port = await listen(t, app)
    const browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: FIREFOX,
      headless: true,
      userDataDir: tempDir(t, 'dictum-firefox-'),
      // A command Firefox never answers fails the test within a minute instead of hanging it.
      timeout: 60_000,
      protocolTimeout: 60_000,
      extraPrefsFirefox: {
        'network.proxy.type': 0,
        'app.update.enabled': false,
        'datareporting.policy.dataSubmissionEnabled': false,
      },
    })
    t.teardown(() => browser.close())
    const page = await browser.newPage()
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(`page error: ${(error as Error).message}`))
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`)
    })
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`))

    const base = `http://127.0.0.1:${port}/`
    for (const [view, selector] of VIEWS) {
      await page.goto(`${base}#/${view}`)
      await page.waitForSelector(selector, { timeout: 20_000 })
      t.pass(`${view}: rendered (${selector})`)
    }
    t.ok(
      await page.$('nav[aria-label="Views"] a[aria-current="page"]'),
      'the navigation marks the view shown',
    )

    await page.goto(`${base}#/dictionary`)
    await page.waitForSelector('#add-rules-triggers')
    await page.type('#add-rules-triggers', 'fire fox')
    await page.type('#add-rules-replacement', 'Firefox')
    await page.click('#dictionary-rules button[type="submit"]')
    await page.waitForSelector('#dictionary-rules tbody tr', { timeout: 20_000 })
    const rules = (await (await fetch(`${base}v1/dictionary/replacements`)).json()) as {
      items: { triggers: string[]; replacement: string }[]
    }
    t.match(
      rules.items,
      [{ triggers: ['fire fox'], replacement: 'Firefox' }],
      'the rule added in Firefox is in the API',
    )
    t.same(problems, [], 'nothing went wrong in the page')
  },
)
