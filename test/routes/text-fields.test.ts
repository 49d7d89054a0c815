/**
 * Every text field that is stored refuses what is not text, and stored context strings are bounded: lone
 * surrogates in dictionary entries or postprocess text used to be stored as WTF-8, read back as U+FFFD, collide
 * and turn every later append into a 500; appName/windowTitle of any size were stored (24 MB each broke
 * GET /v1/history for good).
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { build, injectJson } from '../helpers/build.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'

const LONE = '\ud800'
const OTHER_LONE = '\udfff'

t.test('dictionary entries with a lone surrogate are a 400 naming the field', async (t) => {
  const app = await build(t)
  const cases: Array<[string, unknown, RegExp]> = [
    [
      '/v1/dictionary/replacements',
      { triggers: [`a${LONE}`], replacement: 'x' },
      /the entry\.triggers is not valid Unicode/,
    ],
    [
      '/v1/dictionary/replacements',
      { triggers: ['a'], replacement: `x${LONE}` },
      /the entry\.replacement is not valid/,
    ],
    [
      '/v1/dictionary/custom-words',
      { entries: [{ text: 'ok' }, { text: `w${LONE}` }] },
      /entries\[1\]\.text is not valid/,
    ],
    [
      '/v1/dictionary/custom-words',
      { text: 'w', aliases: [`al${OTHER_LONE}`] },
      /the entry\.aliases is not valid/,
    ],
  ]
  for (const [url, body, message] of cases) {
    const response = await injectJson(app, 'POST', url, body)
    t.equal(response.status, 400, url)
    t.match(response.body.error, message)
  }
  // Two different lone surrogates used to collide as one U+FFFD word; both are refused, nothing is stored.
  t.equal((await injectJson(app, 'POST', '/v1/dictionary/custom-words', { text: `x${LONE}` })).status, 400)
  t.equal(
    (await injectJson(app, 'POST', '/v1/dictionary/custom-words', { text: `x${OTHER_LONE}` })).status,
    400,
  )
  t.same((await injectJson(app, 'GET', '/v1/dictionary/custom-words')).body, { count: 0, items: [] })
  t.equal(
    (await injectJson(app, 'POST', '/v1/dictionary/custom-words', { text: 'fine 😀' })).status,
    200,
    'pairs are fine',
  )
})

t.test('postprocess text with a lone surrogate is a 400', async (t) => {
  const app = await build(t, { ai: { provider: 'rules' } })
  const response = await injectJson(app, 'POST', '/v1/postprocess', { text: `hello ${LONE}` })
  t.equal(response.status, 400)
  t.match(response.body.error, /not valid Unicode text/)
})

t.test('appName and windowTitle are bounded and must be text', async (t) => {
  const app = await build(t)
  const audioBase64 = readFileSync(path.join(audioFixturesDir, 'goforward.wav')).toString('base64')
  const dictate = (body: Record<string, unknown>, headers = {}) =>
    injectJson(app, 'POST', '/v1/dictate', { audioBase64, ...body }, headers)
  t.equal((await dictate({ appName: 'a'.repeat(1024) })).status, 200, '1024 characters are fine')
  const long = await dictate({ appName: 'a'.repeat(1025) })
  t.equal(long.status, 400)
  t.match(long.body, { error: /appName is longer than 1024 characters/, code: 'INVALID_REQUEST' })
  t.equal((await dictate({ windowTitle: 'w'.repeat(24 * 1024) })).status, 400)
  t.equal((await dictate({}, { 'x-window-title': 't'.repeat(2000) })).status, 400, 'the header form too')
  t.equal((await dictate({ appName: `Mail${LONE}` })).status, 400)
  const history = await injectJson(app, 'GET', '/v1/history')
  t.equal(history.body.count, 1, 'only the valid dictation was stored')
})

t.test('job fields with a lone surrogate are a 400 naming the field, and no job is stored', async (t) => {
  const app = await build(t, { vad: { enabled: false } })
  const jfk = path.join(audioFixturesDir, 'jfk.wav')
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ path: jfk, idempotencyKey: `k${LONE}` }, 'idempotencyKey'],
    [{ path: jfk, prompt: `names: Ann${OTHER_LONE}` }, 'prompt'],
    [{ path: jfk, language: `e${LONE}` }, 'language'],
    [{ path: `${audioFixturesDir}/${LONE}.wav` }, 'path'],
    [{ glob: `${audioFixturesDir}/*${LONE}.wav` }, 'glob'],
    [{ url: `http://example.com/${LONE}.wav` }, 'url'],
  ]
  for (const [body, field] of cases) {
    const response = await injectJson(app, 'POST', '/v1/jobs', body)
    t.equal(response.status, 400, field)
    t.same(response.body, {
      error: `Invalid request: ${field} is not valid Unicode text (a lone surrogate).`,
      code: 'INVALID_REQUEST',
      param: field,
    })
  }
  t.equal((await injectJson(app, 'GET', '/v1/jobs')).body.count, 0, 'nothing was stored')
  const fine = await injectJson(app, 'POST', '/v1/jobs', {
    path: jfk,
    prompt: 'emoji 😀',
    idempotencyKey: '🎤',
  })
  t.equal(fine.status, 201, 'pairs are fine')
})
