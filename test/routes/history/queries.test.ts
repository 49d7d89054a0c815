/**
 * History queries and writes of issue 14 item 6, over real HTTP on a real SQLite file: text search, app and
 * time range, cursor paging with nextCursor, DELETE of one entry and (confirmed) of all, and the streamed
 * export in JSON, CSV (quoting, formula cells defused) and Markdown (markup escaped).
 */
import t, { type Test } from 'tap'
import type { NewHistoryEntry } from '../../../history/service.ts'
import { build } from '../../helpers/build.ts'
import { listen } from '../../helpers/http.ts'

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any

const T0 = Date.parse('2026-03-01T12:00:00.000Z')

async function setup(t: Test, overrides = {}) {
  const app = await build(t, overrides)
  const port = await listen(t, app)
  const raw = (method: string, url: string, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${port}${url}`, { method, headers })
  const call = async (method: string, url: string, headers: Record<string, string> = {}) => {
    const response = await raw(method, url, headers)
    return { status: response.status, body: (await response.json()) as Json }
  }
  const record = (entry: Partial<NewHistoryEntry> & { rawText: string }) =>
    app.dictum.history.record({
      finalText: entry.rawText,
      wasAIProcessed: false,
      aiProcessingError: null,
      ...entry,
    })
  return { app, raw, call, record }
}

const texts = (body: Json): string[] => body.items.map((e: Json) => e.rawText)

t.test('search, app and time range, alone and together', async (t) => {
  const { call, record } = await setup(t)
  await record({ rawText: 'meeting at the école', appName: 'Mail', timestamp: new Date(T0) })
  await record({
    rawText: 'buy milk',
    finalText: 'Buy milk.',
    appName: 'Notes',
    timestamp: new Date(T0 + 3600_000),
  })
  await record({ rawText: 'MEETING moved', appName: 'Mail', timestamp: new Date(T0 + 86_400_000) })
  await record({
    rawText: 'raw words',
    finalText: 'Cleaned Meeting notes',
    appName: 'Notes',
    timestamp: new Date(T0 + 2 * 86_400_000),
  })

  const all = await call('GET', '/v1/history')
  t.same(texts(all.body), ['raw words', 'MEETING moved', 'buy milk', 'meeting at the école'])
  t.equal(all.body.nextCursor, null, 'no parameter: the same list, and no next page')

  t.same(
    texts((await call('GET', '/v1/history?q=meeting')).body),
    ['raw words', 'MEETING moved', 'meeting at the école'],
    'raw or final text, any case',
  )
  t.same(
    texts((await call('GET', `/v1/history?q=${encodeURIComponent('ÉCOLE')}`)).body),
    ['meeting at the école'],
    'case folded beyond ASCII',
  )
  t.same(texts((await call('GET', '/v1/history?q=milk.')).body), ['buy milk'], 'the final text is searched')
  t.same(texts((await call('GET', '/v1/history?q=%25')).body), [], '% is a character, not a wildcard')
  t.same(texts((await call('GET', '/v1/history?app=Mail')).body), ['MEETING moved', 'meeting at the école'])
  t.same(texts((await call('GET', '/v1/history?app=mail')).body), [], 'app is exact')
  t.same(
    texts((await call('GET', '/v1/history?from=2026-03-01T13:00:00Z&to=2026-03-03')).body),
    ['MEETING moved', 'buy milk'],
    'from inclusive, to exclusive; a date is midnight UTC',
  )
  t.same(
    texts((await call('GET', `/v1/history?from=${encodeURIComponent('2026-03-02T13:00:00+01:00')}`)).body),
    ['raw words', 'MEETING moved'],
    'a zone offset counts',
  )
  t.same(
    texts((await call('GET', '/v1/history?q=meeting&app=Notes&to=2026-03-04')).body),
    ['raw words'],
    'filters combine',
  )

  const bad: Array<[string, string]> = [
    [
      'from=yesterday',
      'Invalid history query: from must be an ISO 8601 date or date-time with a zone (e.g. 2026-01-31 or 2026-01-31T09:00:00Z).',
    ],
    [
      'to=2026-03-01T10:00:00',
      'Invalid history query: to must be an ISO 8601 date or date-time with a zone (e.g. 2026-01-31 or 2026-01-31T09:00:00Z).',
    ],
    [
      'from=2026-13-45',
      'Invalid history query: from must be an ISO 8601 date or date-time with a zone (e.g. 2026-01-31 or 2026-01-31T09:00:00Z).',
    ],
    ['from=2026-03-02&to=2026-03-01', 'Invalid history query: from is after to.'],
    [`q=${'x'.repeat(1001)}`, 'Invalid history query: q is longer than 1000 characters.'],
    ['cursor=bm9wZQ', 'Invalid history query: cursor is not one this API gave (use nextCursor as it is).'],
    ['cursor=!!', 'Invalid history query: cursor is not one this API gave (use nextCursor as it is).'],
  ]
  for (const [query, error] of bad) {
    const res = await call('GET', `/v1/history?${query}`)
    t.same(res, { status: 400, body: { error, code: 'INVALID_HISTORY_QUERY' } }, query.slice(0, 40))
  }
})

t.test('cursor paging visits every entry once, newest first, through equal timestamps', async (t) => {
  const { call, app } = await setup(t)
  const expected: string[] = []
  for (let i = 0; i < 230; i++) {
    // Groups of three entries share a timestamp: the cursor must tell them apart.
    const entry = await app.dictum.history.record({
      rawText: `entry ${i}`,
      finalText: `entry ${i}`,
      appName: i % 2 === 0 ? 'Even' : 'Odd',
      wasAIProcessed: false,
      aiProcessingError: null,
      timestamp: new Date(T0 + Math.floor(i / 3) * 1000),
    })
    expected.unshift(entry!.id)
  }
  const seen: string[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const page: Json = (await call('GET', `/v1/history?limit=50${cursor ? `&cursor=${cursor}` : ''}`)).body
    t.ok(page.count <= 50)
    seen.push(...page.items.map((e: Json) => e.id))
    cursor = page.nextCursor
    pages++
  } while (cursor !== null && pages < 20)
  t.equal(pages, 5, '230 entries in pages of 50')
  t.same(seen, expected, 'each entry once, in the order of the unpaged list')

  const odd: string[] = []
  cursor = null
  do {
    const page: Json = (await call('GET', `/v1/history?app=Odd&limit=40${cursor ? `&cursor=${cursor}` : ''}`))
      .body
    odd.push(...page.items.map((e: Json) => e.rawText))
    cursor = page.nextCursor
  } while (cursor !== null)
  t.equal(odd.length, 115, 'paging keeps the filter')
  t.ok(odd.every((text) => Number(text.split(' ')[1]) % 2 === 1))
  const exact = (await call('GET', '/v1/history?app=Odd&limit=115')).body
  t.equal(exact.count, 115)
  t.equal(exact.nextCursor, null, 'a page that ends the list exactly has no next cursor')
})

t.test('delete one entry; delete all only when confirmed', async (t) => {
  const { call, record } = await setup(t)
  const kept = await record({ rawText: 'kept' })
  const doomed = await record({ rawText: 'doomed' })
  t.same(await call('DELETE', `/v1/history/${doomed!.id}`), { status: 200, body: { deleted: 1 } })
  t.same(texts((await call('GET', '/v1/history')).body), ['kept'])
  t.same(await call('DELETE', `/v1/history/${doomed!.id}`), {
    status: 404,
    body: {
      error: `History entry not found: no entry has the id "${doomed!.id}".`,
      code: 'HISTORY_ENTRY_NOT_FOUND',
    },
  })

  for (const query of ['', '?confirm=false', '?confirm=1', '?confirm=TRUE', '?yes=true']) {
    const res = await call('DELETE', `/v1/history${query}`)
    t.same(
      res,
      {
        status: 400,
        body: {
          error: 'Deleting the whole history needs confirmation: send DELETE /v1/history?confirm=true.',
          code: 'HISTORY_CLEAR_UNCONFIRMED',
        },
      },
      `DELETE /v1/history${query} deletes nothing`,
    )
  }
  t.same(texts((await call('GET', '/v1/history')).body), ['kept'], 'unconfirmed calls deleted nothing')
  t.equal(kept!.rawText, 'kept')
  await record({ rawText: 'second' })
  t.same(await call('DELETE', '/v1/history?confirm=true'), { status: 200, body: { deleted: 2 } })
  t.same((await call('GET', '/v1/history')).body, { count: 0, items: [], nextCursor: null })
})

/** A small RFC 4180 reader (quoted cells with doubled quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"'
        i++
      } else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      row.push(cell)
      cell = ''
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      i++
    } else cell += c
  }
  return rows
}

t.test('export: JSON, CSV and Markdown as attachments, with the filters, hostile text defused', async (t) => {
  const { raw, record } = await setup(t)
  await record({
    rawText: '=HYPERLINK("http://evil.example","click")',
    appName: 'Sheet',
    timestamp: new Date(T0),
  })
  await record({
    rawText: 'two\nlines, "quoted"',
    finalText: '*bold* <script>alert(1)</script> [link](http://x) `code` & co',
    appName: 'Mail',
    windowTitle: '# Re: lunch',
    wasAIProcessed: true,
    timestamp: new Date(T0 + 1000),
  })
  await record({
    rawText: '- not a list\n1. not a list either\n> not a quote',
    appName: 'Notes',
    timestamp: new Date(T0 + 2000),
  })
  await record({
    rawText: '@SUM(A1) +1 -1',
    aiProcessingError: 'ollama: HTTP 500.',
    timestamp: new Date(T0 + 3000),
  })

  const json = await raw('GET', '/v1/history/export')
  t.equal(json.status, 200)
  t.match(json.headers.get('content-type'), /^application\/json/)
  t.match(
    json.headers.get('content-disposition'),
    /^attachment; filename="dictum-history-\d{4}-\d{2}-\d{2}\.json"$/,
  )
  const document = (await json.json()) as Json
  const list = (await (await raw('GET', '/v1/history')).json()) as Json
  t.same(document.items, list.items, 'the JSON export holds the entries as the list gives them')
  t.match(document.exportedAt, /^\d{4}-\d{2}-\d{2}T/)

  const csv = await raw('GET', '/v1/history/export?format=csv')
  t.match(csv.headers.get('content-type'), /^text\/csv; charset=utf-8/)
  t.match(csv.headers.get('content-disposition'), /\.csv"$/)
  const csvBytes = Buffer.from(await csv.arrayBuffer())
  t.same([...csvBytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'a UTF-8 byte order mark, for spreadsheets')
  const csvText = csvBytes.subarray(3).toString('utf8')
  t.ok(
    csvText.startsWith(
      'id,timestamp,appName,windowTitle,rawText,finalText,characterCount,wasAIProcessed,aiProcessingError\r\n',
    ),
  )
  const rows = parseCsv(csvText)
  t.equal(rows.length, 5, 'a header and four rows (line breaks inside quoted cells)')
  const byRaw = new Map(rows.slice(1).map((cells) => [cells[4], cells]))
  t.ok(
    byRaw.has('\'=HYPERLINK("http://evil.example","click")'),
    'a formula gets an apostrophe, quotes survive',
  )
  t.ok(byRaw.has("'@SUM(A1) +1 -1"), '@ too')
  const multi = byRaw.get('two\nlines, "quoted"')
  t.ok(multi, 'line breaks, commas and quotes round-trip')
  t.equal(multi?.[3], '# Re: lunch', 'a # is no formula')
  t.equal(multi?.[7], 'true')
  t.equal(byRaw.get("'@SUM(A1) +1 -1")?.[8], 'ollama: HTTP 500.')

  const md = await raw('GET', '/v1/history/export?format=md&app=Mail')
  t.match(md.headers.get('content-type'), /^text\/markdown; charset=utf-8/)
  const mdText = await md.text()
  t.match(mdText, /^# dictum history\n/)
  t.match(mdText, '\\*bold\\* \\<script\\>alert(1)\\</script\\> \\[link\\](http://x) \\`code\\` \\& co')
  t.match(mdText, '## 2026-03-01T12:00:01.000Z · Mail — \\# Re: lunch')
  t.notMatch(mdText, 'HYPERLINK', 'the filter applies to the export')
  const notes = await (await raw('GET', '/v1/history/export?format=md&app=Notes')).text()
  t.match(
    notes,
    '\\- not a list  \n1\\. not a list either  \n\\> not a quote',
    'block markers escaped at line starts',
  )

  const bad = await raw('GET', '/v1/history/export?format=xml')
  t.equal(bad.status, 400)
  t.same(await bad.json(), {
    error: 'Invalid history query: format must be json, csv, md.',
    code: 'INVALID_HISTORY_QUERY',
  })
})

t.test('a large export streams, page by page', async (t) => {
  const { app, raw } = await setup(t)
  const insert = app.dictum.db.prepare(
    `INSERT INTO history (id, timestamp_ms, raw_text, final_text, character_count, was_ai_processed)
     VALUES (?, ?, ?, ?, ?, 0)`,
  )
  const text = 'dictated words '.repeat(20)
  app.dictum.db.transaction(() => {
    for (let i = 0; i < 3000; i++) {
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`
      insert.run(id, T0 + i, `${text}${i}`, `${text}${i}`, text.length)
    }
  })()
  const response = await raw('GET', '/v1/history/export?format=json')
  t.equal(response.headers.get('transfer-encoding'), 'chunked', 'sent as it is made, no Content-Length')
  t.equal(response.headers.get('content-length'), null)
  const document = (await response.json()) as Json
  t.equal(document.items.length, 3000, 'every entry, across pages of 500')
  t.equal(new Set(document.items.map((e: Json) => e.id)).size, 3000, 'none twice')
  t.equal(document.items[0].rawText, `${text}2999`, 'newest first')
})

t.test('the token guards the new routes', async (t) => {
  const { call } = await setup(t, { api: { token: 'history-token' } })
  for (const [method, url] of [
    ['GET', '/v1/history?q=x'],
    ['DELETE', '/v1/history?confirm=true'],
    ['DELETE', '/v1/history/00000000-0000-4000-8000-000000000000'],
    ['GET', '/v1/history/export?format=csv'],
  ] as const) {
    t.equal((await call(method, url)).status, 401, `${method} ${url}`)
  }
  t.same((await call('DELETE', '/v1/history?confirm=true', { authorization: 'Bearer history-token' })).body, {
    deleted: 0,
  })
})
