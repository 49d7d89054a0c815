// Drives Debian's firefox-esr through the web app for test/web/firefox.test.ts, in a plain Node process:
// puppeteer-core's WebDriver BiDi client imports chromium-bidi modules that the TypeScript loader the test
// runner puts in test processes fails to resolve. Prints one JSON line: what it saw, or the error.
import puppeteer from 'puppeteer-core'

const [base, firefox, profile] = process.argv.slice(2)
const VIEWS = [
  ['dictate', '#record'],
  ['files', 'input[type="file"]'],
  ['history', '#history-q'],
  ['dictionary', '#add-rules-triggers'],
  ['engines', 'table'],
]

const report = { rendered: [], navigation: false, problems: [], error: null }
const browser = await puppeteer.launch({
  browser: 'firefox',
  executablePath: firefox,
  headless: true,
  userDataDir: profile,
  timeout: 60_000,
  protocolTimeout: 60_000,
})
try {
  const page = await browser.newPage()
  page.on('pageerror', (error) => report.problems.push(`page error: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() === 'error') report.problems.push(`console error: ${message.text()}`)
  })
  page.on('requestfailed', (request) => report.problems.push(`request failed: ${request.url()}`))
  for (const [view, selector] of VIEWS) {
    await page.goto(`${base}#/${view}`)
    await page.waitForSelector(selector, { timeout: 20_000 })
    report.rendered.push(view)
  }
  report.navigation = (await page.$('nav[aria-label="Views"] a[aria-current="page"]')) !== null
  await page.goto(`${base}#/dictionary`)
  await page.waitForSelector('#add-rules-triggers')
  await page.type('#add-rules-triggers', 'fire fox')
  await page.type('#add-rules-replacement', 'Firefox')
  await page.click('#dictionary-rules button[type="submit"]')
  await page.waitForSelector('#dictionary-rules tbody tr', { timeout: 20_000 })
} catch (error) {
  report.error = error instanceof Error ? error.message : String(error)
} finally {
  await Promise.race([browser.close(), new Promise((resolve) => setTimeout(resolve, 10_000))])
  browser.process()?.kill('SIGKILL')
}
process.stdout.write(`${JSON.stringify(report)}\n`)
