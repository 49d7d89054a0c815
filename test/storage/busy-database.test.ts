/**
 * Another process holds the database's write lock (issue 16 item 9): the API keeps answering while writes
 * wait for it, a write that cannot get it in time is a 503 DATABASE_BUSY with Retry-After, a dictation still
 * returns its text (stored: false, storeError), the CLI says so and exits 1, and once the lock is released
 * writes work again. The lock is held by a real child process on the same dictum.db.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { errors } from '../../errors/catalogue.ts'
import { fixtureConfig, setup } from '../cli/run-cli.ts'
import { build } from '../helpers/build.ts'
import { holdDatabaseLock } from '../helpers/database-lock.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'
import { listen } from '../helpers/http.ts'

const JFK = path.join(audioFixturesDir, 'jfk.wav')
const BUSY_MESSAGE = errors.DATABASE_BUSY().message

async function timed(url: string, init?: RequestInit) {
  const started = performance.now()
  const response = await fetch(url, init)
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  const body: any = await response.json()
  return { response, body, ms: performance.now() - started }
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
})

t.test(
  'a write lock held by another process: the API answers, writes get 503, dictations keep their text',
  async (t) => {
    const app = await build(t, {
      speech: { engines: { 'fixture-echo': { text: 'hello world' } } },
      history: { recordTranscribe: true },
    })
    const base = `http://127.0.0.1:${await listen(t, app)}/v1`
    const seeded = await timed(
      `${base}/dictionary/replacements`,
      json({ triggers: ['wi-fi'], replacement: 'Wi-Fi' }),
    )
    t.equal(seeded.response.status, 200, 'writes work before the lock')

    const lock = await holdDatabaseLock(t, app.dictum.configStore.current.dataDir, 'EXCLUSIVE')

    const write = timed(
      `${base}/dictionary/replacements`,
      json({ triggers: ['e mail'], replacement: 'email' }),
    )
    const dictate = timed(`${base}/dictate`, json({ path: JFK, appName: 'Mail' }))
    const transcribe = timed(`${base}/transcribe`, json({ path: JFK }))
    let pending = 3
    const settled = Promise.all([write, dictate, transcribe].map((p) => p.finally(() => pending--)))

    // Health, and reads (WAL readers do not wait for a writer), while both writes wait for the lock.
    const health: number[] = []
    const reads: number[] = []
    while (pending > 0) {
      const answer = await timed(`${base}/health`)
      t.equal(answer.response.status, 200)
      health.push(answer.ms)
      const list = await timed(`${base}/dictionary/replacements`)
      t.equal(list.body.count, 1, 'the committed list is read, not the holder’s uncommitted write')
      const history = await timed(`${base}/history`)
      t.equal(history.response.status, 200)
      reads.push(list.ms, history.ms)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await settled
    // The old code waited in SQLite's busy handler on the event loop: the first /v1/health was answered only
    // once the writes had given up (~5 s), so it answered once. Counted, not timed: a busy machine makes any
    // answer slow, but only a blocked loop keeps health and reads from answering while the writes wait.
    t.ok(health.length >= 3, `health answered ${health.length} times while the writes waited`)
    t.ok(reads.length >= 6, `reads answered ${reads.length} times while the writes waited`)

    const refused = await write
    t.equal(refused.response.status, 503)
    t.equal(refused.response.headers.get('retry-after'), '1')
    t.same(refused.body, { error: BUSY_MESSAGE, code: 'DATABASE_BUSY' })

    const dictation = await dictate
    t.equal(dictation.response.status, 200, 'the dictation is answered')
    t.match(dictation.body, {
      finalText: 'hello world',
      rawText: 'hello world',
      appName: 'Mail',
      stored: false,
      storeError: BUSY_MESSAGE,
    })

    const transcription = await transcribe
    t.equal(transcription.response.status, 200, 'a transcription that history could not keep is answered')
    t.equal(transcription.body.text, 'hello world')

    await lock.release()
    const retried = await timed(
      `${base}/dictionary/replacements`,
      json({ triggers: ['e mail'], replacement: 'email' }),
    )
    t.equal(retried.response.status, 200)
    t.equal(retried.body.count, 2, 'the retried write is stored, the refused one was not half-written')
    const stored = await timed(`${base}/dictate`, json({ path: JFK }))
    t.match(stored.body, { finalText: 'hello world', stored: true, storeError: null })
    const history = await timed(`${base}/history`)
    t.same(
      history.body.items.map((e: { id: string }) => e.id),
      [stored.body.id],
      'only the dictation stored after the release is in history',
    )
    const words = await timed(`${base}/dictionary/custom-words`)
    t.equal(words.body.count, 0, 'the holder’s rolled-back write left nothing')
  },
)

t.test(
  'the CLI while another process holds the lock: an import fails with a clear message (exit 1), a dictation prints its text and warns',
  async (t) => {
    const user = setup(t, fixtureConfig({ text: 'hello world' }))
    const file = path.join(user.dir, 'dict.json')
    writeFileSync(
      file,
      JSON.stringify({ replacements: [{ triggers: ['k eight s'], replacement: 'Kubernetes' }] }),
    )
    const first = await user.run(['dictionary', 'import', file])
    t.equal(first.code, 0, first.stderr)

    const lock = await holdDatabaseLock(t, user.dataDir, 'IMMEDIATE')
    const [busy, dictated, read] = await Promise.all([
      user.run(['dictionary', 'import', file, '--mode', 'merge']),
      user.run(['dictate', '--input', JFK]),
      user.run(['dictionary', 'export', '-']),
    ])
    t.equal(busy.code, 1, 'exit 1')
    t.equal(busy.stderr, `dictum: ${BUSY_MESSAGE}\n`)
    t.equal(dictated.code, 0, dictated.stderr)
    t.equal(dictated.stdout, 'hello world\n', 'the dictated text is printed')
    t.match(dictated.stderr, `dictum: not stored in history: ${BUSY_MESSAGE}\n`)
    t.equal(read.code, 0, `reads work while the lock is held: ${read.stderr}`)
    t.equal(JSON.parse(read.stdout).replacements.length, 1)

    await lock.release()
    const again = await user.run(['dictionary', 'import', file])
    t.equal(again.code, 0, again.stderr)
  },
)
