/**
 * Learning from a correction in the web app, in Chromium (issue 23, Must show), against a real dictum with
 * pocketsphinx and api.token: three clips dictated through /v1/dictate keep their recordings; in History the
 * misheard one (librivox-austen-0880, "he was not an ill disposed young man", heard without "disposed")
 * plays its recording (fetched with the token, played from a blob URL under the page's CSP) and is
 * corrected; the Dictionary view lists the suggestion "disposed", its Replay shows the figures the API
 * stores (3 recordings checked, 1 fixed, 0 broken, WER down), and Accept puts the word in the dictionary
 * (the custom-words list of the page and of the API). The views pass axe-core with the new parts shown.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import type { Page } from 'puppeteer-core'
import t, { type Test } from 'tap'
import { build } from '../helpers/build.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'
import { listen } from '../helpers/http.ts'
import { axeViolations, launch, noBrowser, screenshots, textOf, watchedPage } from '../web/browser.ts'

const pocketsphinx = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')
const skip =
  noBrowser || (pocketsphinx ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)')
const TOKEN = 'web-learning-token'
const CORRECTED = 'He was not an ill disposed young man.'
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any

async function checkView(t: Test, page: Page, name: string) {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: theme }])
    const bad = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')
    t.same(bad, [], `${name} (${theme}): no serious or critical accessibility violations`)
  }
  await screenshots(page, name)
}

t.test('correct an entry, replay and accept its suggestion', { skip }, async (t) => {
  const app = await build(t, { speech: { engine: 'pocketsphinx' }, api: { token: TOKEN } })
  const port = await listen(t, app)
  const base = `http://127.0.0.1:${port}`
  const call = async (method: string, urlPath: string, body?: unknown): Promise<Json> => {
    const response = await fetch(`${base}${urlPath}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return response.json()
  }
  const dictate = (clip: string) =>
    call('POST', '/v1/dictate', { path: path.join(audioFixturesDir, clip), appName: 'Notes' })
  await dictate('goforward.wav')
  await dictate('cards-003.wav')
  const misheard = await dictate('librivox-austen-0880.wav')
  t.notMatch(misheard.rawText, /disposed/, `pocketsphinx mishears it: ${misheard.rawText}`)
  t.equal(misheard.hasAudio, true, 'its recording is kept')

  const browser = await launch(t)
  // The 401 before the token is entered is expected.
  const { page, problems } = await watchedPage(browser, [/status of 401/])
  await page.goto(`${base}/`)
  await page.waitForSelector('#token')
  await page.type('#token', TOKEN)
  await page.click('button[type="submit"]')
  await page.waitForSelector('#record')

  // History: the entry plays its recording and takes the correction.
  await page.goto(`${base}/#/history`)
  await page.waitForFunction("document.querySelectorAll('#history-list li').length === 3")
  await page.click(`#history-list li[data-id="${misheard.id}"] .entry-open`)
  await page.waitForSelector('#entry-audio')
  t.match(await page.$eval('#entry-audio', (e) => e.getAttribute('src')), /^blob:/, 'played from a blob URL')
  // The recording loads (the page fetched it with the token, the CSP lets it play): its length is the clip's.
  await page.waitForFunction("document.querySelector('#entry-audio').readyState >= 1")
  const duration = await page.$eval('#entry-audio', (e) => (e as unknown as { duration: number }).duration)
  t.ok(
    Math.abs(duration - misheard.durationSeconds) < 0.1,
    `the recording lasts ${duration} s, the dictation ${misheard.durationSeconds} s`,
  )
  t.equal(
    await page.$eval('#entry-correction', (e) => (e as unknown as { value: string }).value),
    misheard.finalText,
    'the text to correct starts as the final text',
  )
  await page.click('#entry-correction', { count: 3 })
  await page.keyboard.down('Control')
  await page.keyboard.press('a')
  await page.keyboard.up('Control')
  await page.keyboard.press('Backspace')
  await page.type('#entry-correction', CORRECTED)
  await page.click('#correction-form button[type="submit"]')
  await page.waitForFunction(
    "document.querySelector('#correction-status').textContent.startsWith('Correction saved:')",
  )
  t.match(
    await textOf(page, '#correction-status'),
    /^Correction saved: \d+ suggestions? \(.*\bdisposed\b.*\)\. Review in Dictionary\.$/,
    'it names the suggestions',
  )
  t.equal(await textOf(page, '#entry-corrected'), CORRECTED, 'the entry shows the corrected text')
  t.equal(
    await textOf(page, `#history-list li[data-id="${misheard.id}"] .entry-open`),
    CORRECTED,
    'and so does the list',
  )
  const entries = (await call('GET', '/v1/history')).items
  t.equal(entries.find((e: Json) => e.id === misheard.id).correctedText, CORRECTED, 'stored')
  await checkView(t, page, 'history-correction')

  // Dictionary: the suggestion, replayed, accepted.
  await page.goto(`${base}/#/dictionary`)
  await page.waitForSelector('#dictionary-suggestions tbody tr')
  const rowId = await page.$$eval('#dictionary-suggestions tbody tr', (rows) =>
    rows.find((r) => r.querySelector('.proposal')?.textContent === 'disposed')?.getAttribute('data-id'),
  )
  t.ok(rowId, 'the suggestion "disposed" is listed')
  const row = `#dictionary-suggestions tr[data-id="${rowId}"]`
  t.match(await textOf(page, `${row} .replay`), /Not replayed yet/)
  t.match(await textOf(page, row), /Custom word/)
  await page.click(`${row} .replay-button`)
  await page.waitForSelector(`${row} .replay-figures`, { timeout: 120_000 })
  const shown = await page.$eval(`${row} .replay-figures`, (e) => ({
    checked: Number(e.getAttribute('data-checked')),
    fixed: Number(e.getAttribute('data-fixed')),
    broken: Number(e.getAttribute('data-broken')),
    werBefore: Number(e.getAttribute('data-wer-before')),
    werAfter: Number(e.getAttribute('data-wer-after')),
    text: (e.textContent ?? '').replace(/\s+/g, ' ').trim(),
  }))
  const stored = (await call('GET', '/v1/dictionary/suggestions')).items.find((s: Json) => s.id === rowId)
  t.match(shown, {
    checked: stored.replay.checked,
    fixed: stored.replay.fixed,
    broken: stored.replay.broken,
    werBefore: stored.replay.werBefore,
    werAfter: stored.replay.werAfter,
  })
  t.match(shown, { checked: 3, fixed: 1, broken: 0 }, 'its own recording fixed, the two others unbroken')
  t.ok(shown.werAfter < shown.werBefore, `WER ${shown.werBefore} -> ${shown.werAfter}`)
  t.match(shown.text, /^3 checked, 1 fixed, 0 broken; WER [\d.]+% → [\d.]+%$/, shown.text)
  await checkView(t, page, 'dictionary-suggestions')

  await page.click(`${row} .accept-button`)
  await page.waitForSelector(`${row}[data-state="accepted"]`)
  t.equal(await page.$(`${row} .accept-button`), null, 'no more actions on it')
  await page.waitForFunction(
    "[...document.querySelectorAll('#dictionary-words tbody td')].some((c) => c.textContent === 'disposed')",
  )
  t.equal(await textOf(page, '#dictionary-status'), 'Suggestion accepted: disposed is in the dictionary.')
  const words = await call('GET', '/v1/dictionary/custom-words')
  t.ok(
    words.items.some((w: Json) => w.text === 'disposed'),
    'the dictionary has the word',
  )
  t.equal(
    (await call('GET', '/v1/dictionary/suggestions')).items.find((s: Json) => s.id === rowId).state,
    'accepted',
  )
  t.same(problems, [], 'no errors in the page')
})
