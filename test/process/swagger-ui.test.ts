/**
 * Swagger UI at /v1/docs in a real browser (Debian's Chromium): the page dictum writes starts Swagger UI on
 * the API's document under dictum's own Content-Security-Policy with no error (a refused script, style or
 * request is a console error), shows every operation of the document, and "Try it out" reaches the API.
 */
import t from 'tap'
import { build } from '../helpers/build.ts'
import { listen } from '../helpers/http.ts'
import { launch, noBrowser, textOf, watchedPage } from '../web/browser.ts'

t.test('Swagger UI shows every operation and runs one', { skip: noBrowser }, async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const base = `http://127.0.0.1:${port}`
  const document = (await (await fetch(`${base}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>
  }
  const operations = Object.values(document.paths).reduce((n, methods) => n + Object.keys(methods).length, 0)

  const browser = await launch(t)
  const { page, problems } = await watchedPage(browser)
  await page.goto(`${base}/v1/docs/`, { waitUntil: 'networkidle0' })
  await page.waitForSelector('.opblock', { timeout: 30_000 })
  t.equal(await page.$$eval('.opblock', (blocks) => blocks.length), operations, 'every operation is shown')
  t.match(await textOf(page, '.info .title'), /^dictum local API/, "the document's title")

  const health = await page.waitForSelector('.opblock-get [data-path="/v1/health"]')
  await health?.click()
  await (await page.waitForSelector('#operations-default-get_v1_health .try-out__btn'))?.click()
  await (await page.waitForSelector('#operations-default-get_v1_health .execute'))?.click()
  const status = '#operations-default-get_v1_health .live-responses-table tbody .response-col_status'
  await page.waitForSelector(status)
  t.equal(await textOf(page, status), '200', '"Try it out" on GET /v1/health got 200')
  t.same(problems, [], 'no script error, refused resource or CSP violation')
})
