/**
 * The page in Firefox (issue 14: "works with JavaScript modules in current Chromium and Firefox"): Debian's
 * firefox-esr driven headless by puppeteer-core over WebDriver BiDi (firefox-driver.mjs, in a plain Node
 * process). The page loads under its CSP (the import map, Preact and htm as modules), every view renders its
 * main control, a dictionary rule added in the page reaches the API, and nothing goes wrong in the page
 * (script errors, refused resources).
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { build, tempDir } from '../helpers/build.ts'
import { listen } from '../helpers/http.ts'

const FIREFOX = '/usr/bin/firefox-esr'
const DRIVER = path.join(import.meta.dirname, '../web/firefox-driver.mjs')
const skip = existsSync(FIREFOX)
  ? false
  : `${FIREFOX} is not installed (scripts/setup.sh installs Debian's firefox-esr)`

interface Report {
  rendered: string[]
  navigation: boolean
  problems: string[]
  error: string | null
}

t.test(
  'the web app in Firefox: modules under the CSP, every view, an edit through the API',
  { skip, timeout: 180_000 },
  async (t) => {
    const app = await build(t)
    const port = await listen(t, app)
    const base = `http://127.0.0.1:${port}/`
    // Without the test runner's loaders: the driver is plain JavaScript.
    const env = { ...process.env, NODE_OPTIONS: '' }
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [DRIVER, base, FIREFOX, tempDir(t, 'dictum-firefox-')],
      { env, timeout: 150_000 },
    )
    const report = JSON.parse(stdout.trim().split('\n').at(-1) as string) as Report
    t.equal(report.error, null, 'the driver went through')
    t.same(report.rendered, ['dictate', 'files', 'history', 'dictionary', 'engines'], 'every view rendered')
    t.ok(report.navigation, 'the navigation marks the view shown')
    const rules = (await (await fetch(`${base}v1/dictionary/replacements`)).json()) as {
      items: { triggers: string[]; replacement: string }[]
    }
    t.match(
      rules.items,
      [{ triggers: ['fire fox'], replacement: 'Firefox' }],
      'the rule added in Firefox is in the API',
    )
    t.same(report.problems, [], 'nothing went wrong in the page')
  },
)
