/**
 * One dictionary entry by id (issue 14 item 6): PATCH and DELETE of `/v1/dictionary/replacements/:id` and
 * `/v1/dictionary/custom-words/:id` over real HTTP on a real SQLite file, with the bulk routes' validation
 * messages, 404 for an unknown id, the full list in every answer; custom words have ids (migration 2 of the
 * dictionary gives the words of an older database theirs), kept across bulk writes.
 */
import path from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t, { type Test } from 'tap'
import { dictionaryMigrations } from '../../../dictionary/migrations.ts'
import { historyMigrations } from '../../../history/migrations.ts'
import { TABLES } from '../../../server/app.ts'
import { DATABASE_FILE, openDatabase } from '../../../storage/database.ts'
import { featureVersions } from '../../../storage/migrations.ts'
import { build, tempDir } from '../../helpers/build.ts'
import { listen } from '../../helpers/http.ts'

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any

async function client(t: Test, overrides = {}) {
  const app = await build(t, overrides)
  const port = await listen(t, app)
  const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`http://127.0.0.1:${port}${url}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    })
    const text = await response.text()
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json }
  }
  return { app, call }
}

t.test('replacement rules: edit and delete one by id', async (t) => {
  const { call } = await client(t)
  const url = '/v1/dictionary/replacements'
  const created = await call('POST', url, {
    entries: [
      { triggers: ['open ai'], replacement: 'OpenAI' },
      { triggers: ['k eight s'], replacement: 'Kubernetes' },
      { triggers: ['post gres'], replacement: 'PostgreSQL' },
    ],
  })
  const [openai, k8s, postgres] = created.body.items
  t.match(openai.id, UUID_V4)

  // Only the given field changes; the rule keeps its id and its place.
  const edited = await call('PATCH', `${url}/${k8s.id}`, { triggers: ['  Cube   Control ', 'k8s'] })
  t.equal(edited.status, 200)
  t.same(edited.body, {
    count: 3,
    items: [openai, { id: k8s.id, triggers: ['cube control', 'k8s'], replacement: 'Kubernetes' }, postgres],
  })
  const renamed = await call('PATCH', `${url}/${k8s.id.toUpperCase()}`, { replacement: 'K8s' })
  t.equal(renamed.status, 200, 'ids compare case-insensitively')
  t.same(renamed.body.items[1], { id: k8s.id, triggers: ['cube control', 'k8s'], replacement: 'K8s' })
  t.same((await call('GET', url)).body, renamed.body, 'stored: the GET reads the same list')

  // Validation: the bulk routes' messages, naming "the entry"; nothing stored.
  const cases: Array<[unknown, string]> = [
    [{ replacement: '  ' }, 'Invalid replacements payload: the entry.replacement must not be blank.'],
    [
      { triggers: [' '] },
      'Invalid replacements payload: the entry.triggers must contain at least one non-blank phrase.',
    ],
    [{ triggers: 'x' }, 'Invalid replacements payload: triggers: expected array.'],
    [
      { replacement: 'x'.repeat(2001) },
      'Invalid replacements payload: the entry.replacement is longer than 2000 characters.',
    ],
    [
      { replacement: '\ud800' },
      'Invalid replacements payload: the entry.replacement is not valid Unicode text (a lone surrogate).',
    ],
    [{}, 'Invalid replacements payload: expected "triggers" or "replacement".'],
    [[1], 'Invalid replacements payload: the body must be a JSON object.'],
    [
      { replacement: 'openai' },
      `Invalid replacements payload: the entry.replacement is already the replacement of rule ${openai.id}.`,
    ],
  ]
  for (const [body, message] of cases) {
    const res = await call('PATCH', `${url}/${k8s.id}`, body)
    t.equal(res.status, 400, JSON.stringify(body).slice(0, 60))
    t.same(res.body, { error: message, code: 'INVALID_REPLACEMENTS' })
  }
  const broken = await call('PATCH', `${url}/${k8s.id}`, '{"replacement":')
  t.same(broken, {
    status: 400,
    body: { error: 'Invalid JSON replacements payload.', code: 'INVALID_REPLACEMENTS_JSON' },
  })
  t.same((await call('GET', url)).body, renamed.body, 'refused edits stored nothing')

  // Unknown ids: 404, for PATCH and DELETE alike.
  for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
    for (const method of ['PATCH', 'DELETE']) {
      const res = await call(method, `${url}/${id}`, method === 'PATCH' ? { replacement: 'x' } : undefined)
      t.same(res, {
        status: 404,
        body: {
          error: `Replacement rule not found: no rule has the id "${id}".`,
          code: 'REPLACEMENT_NOT_FOUND',
        },
      })
    }
  }

  const deleted = await call('DELETE', `${url}/${openai.id}`)
  t.equal(deleted.status, 200)
  t.same(
    deleted.body.items.map((r: Json) => r.id),
    [k8s.id, postgres.id],
  )
  t.equal((await call('DELETE', `${url}/${openai.id}`)).status, 404, 'a deleted rule is gone')
  t.same((await call('GET', url)).body, deleted.body)
})

t.test('an edited rule applies to the next transcription', async (t) => {
  const { app, call } = await client(t)
  const created = await call('POST', '/v1/dictionary/replacements', {
    triggers: ['hello'],
    replacement: 'Hi',
  })
  t.equal(app.dictum.dictionary.applyReplacements('hello world'), 'Hi world')
  await call('PATCH', `/v1/dictionary/replacements/${created.body.items[0].id}`, { replacement: 'Greetings' })
  t.equal(app.dictum.dictionary.applyReplacements('hello world'), 'Greetings world')
})

t.test('custom words: ids in every answer, edit and delete one by id', async (t) => {
  const { app, call } = await client(t)
  const url = '/v1/dictionary/custom-words'
  const created = await call('POST', url, {
    entries: [{ text: 'Kubernetes', weight: 20, aliases: ['cube er net ease'] }, { text: 'Grafana' }],
  })
  t.equal(created.status, 200)
  const [k8s, grafana] = created.body.items
  t.match(k8s, { text: 'Kubernetes', weight: 20, aliases: ['cube er net ease'] })
  t.match(k8s.id, UUID_V4)
  t.not(k8s.id, grafana.id)
  t.same(Object.keys(k8s), ['id', 'text', 'weight', 'aliases'])
  t.same(
    app.dictum.dictionary.customWords()[0],
    { text: 'Kubernetes', weight: 20, aliases: ['cube er net ease'] },
    'engines get the words without their ids',
  )

  // A bulk append by text keeps the word's id; a new word gets a new one.
  const appended = await call('POST', url, { text: 'KUBERNETES', weight: 5 })
  t.same(appended.body.items[0], { id: k8s.id, text: 'KUBERNETES', weight: 5, aliases: [] })

  // PATCH: omitted fields keep their value, `weight: null` resets it, aliases are re-checked against the text.
  const edited = await call('PATCH', `${url}/${k8s.id}`, { aliases: ['K8S', 'cube control'] })
  t.same(edited.body.items[0], {
    id: k8s.id,
    text: 'KUBERNETES',
    weight: 5,
    aliases: ['k8s', 'cube control'],
  })
  const renamed = await call('PATCH', `${url}/${k8s.id}`, { text: ' k8s ', weight: null })
  t.same(
    renamed.body.items[0],
    { id: k8s.id, text: 'k8s', weight: null, aliases: ['cube control'] },
    'the alias equal to the new text goes, as in a bulk write',
  )
  t.same((await call('GET', url)).body, renamed.body)

  const cases: Array<[unknown, string]> = [
    [
      { weight: 0 },
      'Invalid custom words payload: the entry.weight must be null or a number greater than 0 and at most 100.',
    ],
    [{ text: '' }, 'Invalid custom words payload: the entry.text must not be blank.'],
    [
      { aliases: Array.from({ length: 21 }, (_, i) => `a${i}`) },
      'Invalid custom words payload: the entry.aliases has more than 20 entries.',
    ],
    [{ weight: '5' }, 'Invalid custom words payload: weight: expected union value.'],
    [
      { text: 'grafana' },
      `Invalid custom words payload: the entry.text is already the text of custom word ${grafana.id}.`,
    ],
    [{ nothing: 1 }, 'Invalid custom words payload: expected "text", "weight" or "aliases".'],
  ]
  for (const [body, message] of cases) {
    const res = await call('PATCH', `${url}/${k8s.id}`, body)
    t.equal(res.status, 400, JSON.stringify(body).slice(0, 60))
    t.same(res.body, { error: message, code: 'INVALID_CUSTOM_WORDS' })
  }
  t.same((await call('PATCH', `${url}/${k8s.id}`, 'nope')).body.code, 'INVALID_CUSTOM_WORDS_JSON')
  t.same((await call('GET', url)).body, renamed.body, 'refused edits stored nothing')

  const missing = await call('DELETE', `${url}/00000000-0000-4000-8000-000000000000`)
  t.same(missing, {
    status: 404,
    body: {
      error: 'Custom word not found: no word has the id "00000000-0000-4000-8000-000000000000".',
      code: 'CUSTOM_WORD_NOT_FOUND',
    },
  })
  const deleted = await call('DELETE', `${url}/${grafana.id}`)
  t.same(deleted.body, { count: 1, items: [renamed.body.items[0]] })
})

t.test(
  'custom word ids in bulk writes: an id targets its word, a rename onto another text merges',
  async (t) => {
    const { call } = await client(t)
    const url = '/v1/dictionary/custom-words'
    const id = '0b6c1f5e-8a8e-4c1e-9f4a-2d1c3b4a5e6f'
    const given = await call('POST', url, { id: id.toUpperCase(), text: 'Alpha' })
    t.same(
      given.body.items,
      [{ id, text: 'Alpha', weight: null, aliases: [] }],
      'a given id is kept, lower-cased',
    )
    await call('POST', url, { text: 'Beta' })
    const merged = await call('POST', url, { id, text: 'beta', weight: 3 })
    t.same(
      merged.body.items,
      [{ id, text: 'beta', weight: 3, aliases: [] }],
      'the word renamed onto Beta absorbs it',
    )
    const bad = await call('POST', url, { id: 'nope', text: 'x' })
    t.same(bad.body, {
      error: 'Invalid custom words payload: the entry.id must be a UUID.',
      code: 'INVALID_CUSTOM_WORDS',
    })
    const replaced = await call('POST', url, { mode: 'replace', entries: [{ text: 'Gamma' }] })
    t.not(replaced.body.items[0].id, id, 'replace mode: new words, new ids')
  },
)

t.test('the token and the Host/Origin guard cover the new routes', async (t) => {
  const { call } = await client(t, { api: { token: 'secret-token' } })
  const auth = { authorization: 'Bearer secret-token' }
  const created = await call('POST', '/v1/dictionary/custom-words', { text: 'Kept' }, auth)
  const id = created.body.items[0].id
  const noToken = await call('DELETE', `/v1/dictionary/custom-words/${id}`)
  t.equal(noToken.status, 401)
  const foreign = await call(
    'PATCH',
    `/v1/dictionary/custom-words/${id}`,
    { text: 'Evil' },
    {
      ...auth,
      origin: 'https://evil.example',
    },
  )
  t.same(foreign.body, {
    error: 'Forbidden: cross-origin requests are not allowed.',
    code: 'FORBIDDEN_ORIGIN',
  })
  t.same((await call('GET', '/v1/dictionary/custom-words', undefined, auth)).body.items[0].text, 'Kept')
})

t.test(
  'migration 2 gives the custom words of an older database ids, and keeps everything else',
  async (t) => {
    const dataDir = tempDir(t)
    const old = new BetterSqlite3(path.join(dataDir, DATABASE_FILE))
    old.exec(dictionaryMigrations[0]! + historyMigrations[0]!)
    old.pragma('user_version = 1')
    const insert = old.prepare(
      'INSERT INTO custom_words (text_key, position, text, weight, aliases) VALUES (?, ?, ?, ?, ?)',
    )
    insert.run('kubernetes', 0, 'Kubernetes', 20, '["cube er net ease"]')
    insert.run('grafana', 1, 'Grafana', null, '[]')
    old.close()

    const db = openDatabase({ dataDir, features: TABLES })
    t.equal(featureVersions(db).dictionary, dictionaryMigrations.length)
    const rows = db
      .prepare('SELECT id, text, weight, aliases FROM custom_words ORDER BY position')
      .all() as Json[]
    t.same(
      rows.map(({ text, weight, aliases }) => ({ text, weight, aliases })),
      [
        { text: 'Kubernetes', weight: 20, aliases: '["cube er net ease"]' },
        { text: 'Grafana', weight: null, aliases: '[]' },
      ],
    )
    for (const row of rows) t.match(row.id, UUID_V4, `${row.text} has a UUID v4`)
    t.not(rows[0].id, rows[1].id)
    db.close()

    const app = await build(t, { dataDir })
    const listed = (await app.inject({ url: '/v1/dictionary/custom-words' })).json()
    t.same(
      listed.items.map((w: Json) => w.id),
      rows.map((r) => r.id),
      'the API serves the ids the migration gave',
    )
  },
)
