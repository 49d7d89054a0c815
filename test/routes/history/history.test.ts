import t from 'tap'
import { countCharacters, parseHistoryLimit } from '../../../history/service.ts'
import { build, injectJson } from '../../helpers/build.ts'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

t.test('empty history: count 0', async (t) => {
  const app = await build(t)
  t.same((await injectJson(app, 'GET', '/v1/history')).body, { count: 0, items: [], nextCursor: null })
})

t.test('entries carry every spec field, newest first', async (t) => {
  const app = await build(t)
  const { history } = app.dictum
  await history.record({
    rawText: 'first',
    finalText: 'First.',
    appName: 'Mail',
    windowTitle: 'Draft',
    wasAIProcessed: true,
    aiProcessingError: null,
    timestamp: new Date('2026-01-01T10:00:00Z'),
  })
  await history.record({
    rawText: 'second',
    finalText: 'second',
    wasAIProcessed: false,
    aiProcessingError: 'ollama: HTTP 500.',
    timestamp: new Date('2026-01-01T11:00:00Z'),
  })
  await history.record({
    rawText: 'same time later insert',
    finalText: 'same time later insert',
    wasAIProcessed: false,
    aiProcessingError: null,
    timestamp: new Date('2026-01-01T11:00:00Z'),
  })
  const res = await injectJson(app, 'GET', '/v1/history')
  t.equal(res.status, 200)
  t.equal(res.body.count, 3)
  t.same(
    res.body.items.map((e: { rawText: string }) => e.rawText),
    ['same time later insert', 'second', 'first'],
  )
  const first = res.body.items[2]
  t.match(first.id, /^[0-9a-f-]{36}$/)
  t.equal(first.timestamp, '2026-01-01T10:00:00.000Z')
  t.match(first.timestamp, ISO_MS)
  t.equal(first.originalText, 'first')
  t.equal(first.rawText, first.originalText)
  t.equal(first.finalText, 'First.')
  t.equal(first.processedText, first.finalText)
  t.equal(first.appName, 'Mail')
  t.equal(first.windowTitle, 'Draft')
  t.equal(first.characterCount, 6)
  t.equal(first.wasAIProcessed, true)
  t.equal(first.aiProcessingError, null)
  t.equal(res.body.items[1].aiProcessingError, 'ollama: HTTP 500.')
  t.equal(res.body.items[1].appName, '', 'unknown app is an empty string')
})

t.test('limit: default 100, clamped to 1..1000, non-integers give the default', async (t) => {
  t.equal(parseHistoryLimit(undefined), 100)
  t.equal(parseHistoryLimit('abc'), 100)
  t.equal(parseHistoryLimit('2.5'), 100)
  t.equal(parseHistoryLimit(''), 100)
  t.equal(parseHistoryLimit('0'), 1)
  t.equal(parseHistoryLimit('-5'), 1)
  t.equal(parseHistoryLimit('1001'), 1000)
  t.equal(parseHistoryLimit('99999999999999999999'), 1000)
  t.equal(parseHistoryLimit(' 7 '), 7)
  const app = await build(t)
  for (let i = 0; i < 120; i++) {
    await app.dictum.history.record({
      rawText: `n${i}`,
      finalText: `n${i}`,
      wasAIProcessed: false,
      aiProcessingError: null,
      timestamp: new Date(1_700_000_000_000 + i),
    })
  }
  const count = async (query: string) => (await injectJson(app, 'GET', `/v1/history${query}`)).body.count
  t.equal(await count(''), 100)
  t.equal(await count('?limit=5'), 5)
  t.equal(await count('?limit=0'), 1)
  t.equal(await count('?limit=-3'), 1)
  t.equal(await count('?limit=5000'), 120)
  t.equal(await count('?limit=abc'), 100)
  t.equal(await count('?limit=1.5'), 100)
  t.equal(await count('?limit=3&limit=4'), 3, 'a repeated parameter: the first one counts')
  t.equal((await injectJson(app, 'GET', '/v1/history?limit=1')).body.items[0].rawText, 'n119')
})

t.test('other methods than GET and DELETE get 405 with Allow', async (t) => {
  const app = await build(t)
  for (const method of ['POST', 'PUT', 'PATCH', 'HEAD']) {
    const res = await app.inject({ method: method as 'POST', url: '/v1/history' })
    t.equal(res.statusCode, 405, method)
    t.equal(res.headers.allow, 'DELETE, GET')
    if (method !== 'HEAD') t.same(res.json(), { error: 'Method not allowed.', code: 'METHOD_NOT_ALLOWED' })
  }
})

t.test('empty transcripts are not stored; characterCount counts graphemes', async (t) => {
  const app = await build(t)
  t.equal(
    await app.dictum.history.record({
      rawText: '  ',
      finalText: '',
      wasAIProcessed: false,
      aiProcessingError: null,
    }),
    null,
  )
  t.equal(countCharacters('e\u0301'), 1, 'combining accent')
  t.equal(countCharacters('👩‍👩‍👧'), 1, 'ZWJ family emoji')
  t.equal(countCharacters('🇫🇷ab'), 3)
  const entry = await app.dictum.history.record({
    rawText: 'x',
    finalText: 'café 👍🏽',
    wasAIProcessed: false,
    aiProcessingError: null,
  })
  t.equal(entry?.characterCount, 6)
  t.equal((await injectJson(app, 'GET', '/v1/history')).body.count, 1)
})

t.test('retention keeps the newest history.maxEntries', async (t) => {
  const app = await build(t, { history: { maxEntries: 5 } })
  for (let i = 0; i < 12; i++) {
    await app.dictum.history.record({
      rawText: `e${i}`,
      finalText: `e${i}`,
      wasAIProcessed: false,
      aiProcessingError: null,
      timestamp: new Date(1_700_000_000_000 + i * 1000),
    })
  }
  const res = await injectJson(app, 'GET', '/v1/history')
  t.same(
    res.body.items.map((e: { rawText: string }) => e.rawText),
    ['e11', 'e10', 'e9', 'e8', 'e7'],
  )
})

t.test('history survives a restart', async (t) => {
  const first = await build(t)
  const dataDir = first.dictum.configStore.current.dataDir
  await first.dictum.history.record({
    rawText: 'kept',
    finalText: 'Kept.',
    wasAIProcessed: true,
    aiProcessingError: null,
  })
  await first.close()
  const second = await build(t, { dataDir })
  const res = await injectJson(second, 'GET', '/v1/history')
  t.equal(res.body.count, 1)
  t.equal(res.body.items[0].finalText, 'Kept.')
})
