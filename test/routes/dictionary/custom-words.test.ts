import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { OTHER_WRITERS_CHECK_MS } from '../../../dictionary/store.ts'
import { build, injectJson } from '../../helpers/build.ts'

const URL = '/v1/dictionary/custom-words'

/** The words without their ids (each has one: a UUID). */
function withoutIds<T extends { id?: unknown }>(items: T[]): Omit<T, 'id'>[] {
  return items.map(({ id, ...word }) => {
    if (typeof id !== 'string' || !/^[0-9a-f-]{36}$/.test(id)) throw new Error(`no id: ${JSON.stringify(id)}`)
    return word
  })
}

t.test('single-entry form; weight and aliases always present in responses', async (t) => {
  const app = await build(t)
  const res = await injectJson(app, 'POST', URL, { text: '  Kubernetes ' })
  t.equal(res.status, 200)
  t.equal(res.body.count, 1)
  t.same(withoutIds(res.body.items), [{ text: 'Kubernetes', weight: null, aliases: [] }])
  t.same((await injectJson(app, 'GET', URL)).body, res.body)
})

t.test(
  'aliases are trimmed, lower-cased, de-duplicated, and the text itself and blanks removed',
  async (t) => {
    const app = await build(t)
    const res = await injectJson(app, 'POST', URL, {
      text: 'PostgreSQL',
      weight: 12.5,
      aliases: [' Postgres ', 'postgres', 'postgresql', '', 'POST GRES  QL'],
    })
    t.same(withoutIds(res.body.items), [
      { text: 'PostgreSQL', weight: 12.5, aliases: ['postgres', 'post gres ql'] },
    ])
  },
)

t.test('append updates in place by case-insensitive text; omitted weight and aliases reset', async (t) => {
  const app = await build(t)
  await injectJson(app, 'POST', URL, {
    entries: [
      { text: 'Alpha', weight: 5, aliases: ['alfa'] },
      { text: 'Beta', weight: 2 },
    ],
  })
  const res = await injectJson(app, 'POST', URL, {
    entries: [{ text: 'ALPHA' }, { text: 'Gamma', aliases: null }],
  })
  t.same(withoutIds(res.body.items), [
    { text: 'ALPHA', weight: null, aliases: [] },
    { text: 'Beta', weight: 2, aliases: [] },
    { text: 'Gamma', weight: null, aliases: [] },
  ])
})

t.test('replace mode stores only the given words', async (t) => {
  const app = await build(t)
  await injectJson(app, 'POST', URL, { entries: [{ text: 'one' }, { text: 'two' }] })
  const res = await injectJson(app, 'POST', URL, { mode: 'replace', entries: [{ text: 'three' }] })
  t.equal(res.body.count, 1)
  t.same(withoutIds(res.body.items), [{ text: 'three', weight: null, aliases: [] }])
})

t.test('weight must be null or a finite number in (0, 100]', async (t) => {
  const app = await build(t)
  for (const weight of [0, -1, 100.5, 1e9, '5', true]) {
    const res = await injectJson(app, 'POST', URL, { entries: [{ text: 'ok' }, { text: 'w', weight }] })
    t.equal(res.status, 400, `weight ${JSON.stringify(weight)}`)
    t.equal(res.body.code, 'INVALID_CUSTOM_WORDS')
    t.match(res.body.error, /^Invalid custom words payload: entries\[1\]/)
  }
  for (const weight of [0.001, 1, 100, null]) {
    const res = await injectJson(app, 'POST', URL, { text: `w${weight}`, weight })
    t.equal(res.status, 200, `weight ${weight} accepted`)
  }
  t.equal((await injectJson(app, 'GET', URL)).body.count, 4, 'only the valid writes were stored')
})

t.test('blank text, bad shapes and malformed JSON are 400s', async (t) => {
  const app = await build(t)
  const blank = await injectJson(app, 'POST', URL, { entries: [{ text: '  ' }] })
  t.match(blank.body.error, /entries\[0\]\.text must not be blank/)
  const none = await injectJson(app, 'POST', URL, { mode: 'append' })
  t.match(none.body.error, /expected "entries", or "text"/)
  const aliases = await injectJson(app, 'POST', URL, { text: 'x', aliases: 'y' })
  t.match(aliases.body.error, /aliases/)
  const bad = await injectJson(app, 'POST', URL, '{"text": "x",}')
  t.same(bad.body, { error: 'Invalid JSON custom words payload.', code: 'INVALID_CUSTOM_WORDS_JSON' })
  t.equal((await injectJson(app, 'GET', URL)).body.count, 0)
})

t.test('at most 256 custom words', async (t) => {
  const app = await build(t)
  const entries = Array.from({ length: 256 }, (_, i) => ({ text: `word${i}` }))
  t.equal((await injectJson(app, 'POST', URL, { entries })).body.count, 256)
  const over = await injectJson(app, 'POST', URL, { text: 'word256' })
  t.equal(over.status, 400)
  t.equal(over.body.code, 'TOO_MANY_CUSTOM_WORDS')
  const tooMany = await injectJson(app, 'POST', URL, {
    mode: 'replace',
    entries: [...entries, { text: 'x' }],
  })
  t.equal(tooMany.status, 400)
  t.equal((await injectJson(app, 'GET', URL)).body.count, 256, 'nothing stored')
})

t.test('100 concurrent appends over real HTTP are all kept', async (t) => {
  const app = await build(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  const responses = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      fetch(`http://127.0.0.1:${port}${URL}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: `concurrent-${i}`, weight: (i % 100) + 1 }),
      }),
    ),
  )
  t.ok(
    responses.every((r) => r.status === 200),
    'every append succeeded',
  )
  const list = (await (await fetch(`http://127.0.0.1:${port}${URL}`)).json()) as {
    count: number
    items: { text: string }[]
  }
  t.equal(list.count, 100)
  t.same(new Set(list.items.map((w) => w.text)).size, 100, 'no update lost')
  app.server.closeAllConnections()
})

t.test('the dictionary survives a restart on the same data dir', async (t) => {
  const first = await build(t)
  const dataDir = first.dictum.configStore.current.dataDir
  const written = await injectJson(first, 'POST', URL, {
    text: 'Persisted',
    weight: 3,
    aliases: ['persist it'],
  })
  await injectJson(first, 'POST', '/v1/dictionary/replacements', { triggers: ['foo'], replacement: 'Bar' })
  await first.close()
  const second = await build(t, { dataDir })
  t.same((await injectJson(second, 'GET', URL)).body.items, [
    { id: written.body.items[0].id, text: 'Persisted', weight: 3, aliases: ['persist it'] },
  ])
  t.equal((await injectJson(second, 'GET', '/v1/dictionary/replacements')).body.items[0].replacement, 'Bar')
})

t.test('a write by another process (second connection) is seen within OTHER_WRITERS_CHECK_MS', async (t) => {
  const a = await build(t)
  const b = await build(t, { dataDir: a.dictum.configStore.current.dataDir })
  t.equal((await injectJson(a, 'GET', URL)).body.count, 0)
  await injectJson(b, 'POST', URL, { text: 'from-b' })
  t.equal((await injectJson(b, 'GET', URL)).body.count, 1, 'the writer sees its own write at once')
  await sleep(OTHER_WRITERS_CHECK_MS + 20)
  t.equal((await injectJson(a, 'GET', URL)).body.count, 1, 'a sees b’s write')
  t.equal(a.dictum.dictionary.applyReplacements('x'), 'x')
  await injectJson(b, 'POST', '/v1/dictionary/replacements', { triggers: ['x'], replacement: 'Y' })
  await sleep(OTHER_WRITERS_CHECK_MS + 20)
  t.equal(
    a.dictum.dictionary.applyReplacements('x'),
    'Y',
    'replacement cache refreshed after another connection wrote',
  )
})
