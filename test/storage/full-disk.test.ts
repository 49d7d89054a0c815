/**
 * The disk of the data dir is full (issue 16 item 9): a dictionary write is a 507 DISK_FULL naming the fix
 * instead of a generic 500, a dictation still returns its text (stored: false, storeError), the API keeps
 * answering, and the database stays intact and usable once space is freed. The data dir is on a real 4 MB
 * tmpfs filled with a file (mounting needs root; without it the test says so and skips).
 */
import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { errors } from '../../errors/catalogue.ts'
import { buildApp, type DictumApp } from '../../server/app.ts'
import { DATABASE_FILE } from '../../storage/database.ts'
import { testConfig } from '../helpers/build.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'

const JFK = path.join(audioFixturesDir, 'jfk.wav')
const FULL_MESSAGE = errors.DISK_FULL().message

/** Writes zeros to `file` until the disk refuses more (ENOSPC). */
function fillDisk(file: string): void {
  const fd = openSync(file, 'w')
  const chunk = Buffer.alloc(4096)
  try {
    for (;;) writeSync(fd, chunk)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err
  } finally {
    closeSync(fd)
  }
}

t.test(
  'a full disk: 507 DISK_FULL on writes, dictations keep their text, the database survives',
  async (t) => {
    const mount = mkdtempSync(path.join(tmpdir(), 'dictum-full-disk-'))
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mount], { stdio: 'pipe' })
    } catch (err) {
      rmSync(mount, { recursive: true })
      const why = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim()
      t.skip(`cannot mount a 4 MB tmpfs to fill (needs root): ${why}`, () => {})
      return
    }
    let app: DictumApp | undefined
    // One teardown, in order: the app lets go of the database, then the tmpfs goes, then its mount point.
    t.teardown(async () => {
      await app?.close()
      execFileSync('umount', [mount])
      rmSync(mount, { recursive: true })
    })
    const dataDir = path.join(mount, 'data')
    app = await buildApp(
      testConfig(t, { dataDir, speech: { engines: { 'fixture-echo': { text: 'hello world' } } } }),
      { logger: false },
    )
    await app.listen({ host: '127.0.0.1', port: 0 })
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/v1`
    const post = async (route: string, body: unknown) => {
      const response = await fetch(`${base}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
      return { status: response.status, body: (await response.json()) as any }
    }
    // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
    const get = async (route: string): Promise<any> => (await fetch(`${base}${route}`)).json()

    t.equal(
      (await post('/dictionary/replacements', { triggers: ['wi-fi'], replacement: 'Wi-Fi' })).status,
      200,
    )
    t.match((await post('/dictate', { path: JFK })).body, { stored: true })

    const filler = path.join(mount, 'filler')
    fillDisk(filler)
    // A write that needs new pages: 100 rules of 2000 characters.
    const big = Array.from({ length: 100 }, (_, i) => ({
      triggers: [`t${i}`],
      replacement: `${i} `.padEnd(2000, 'x'),
    }))
    const refused = await post('/dictionary/replacements', { entries: big })
    t.equal(refused.status, 507)
    t.same(refused.body, { error: FULL_MESSAGE, code: 'DISK_FULL' })
    const dictation = await post('/dictate', { path: JFK, appName: 'Mail' })
    t.equal(dictation.status, 200, 'the dictation is answered')
    t.match(dictation.body, {
      finalText: 'hello world',
      appName: 'Mail',
      stored: false,
      storeError: FULL_MESSAGE,
    })
    t.match(await get('/health'), { status: 'ok' }, 'health answers')
    t.equal(
      (await get('/dictionary/replacements')).count,
      1,
      'reads still work; the refused write left nothing',
    )
    t.equal((await get('/history')).count, 1)

    rmSync(filler)
    const stored = await post('/dictionary/replacements', { entries: big })
    t.equal(stored.status, 200, 'writes work once space is freed')
    t.equal(stored.body.count, 101)
    t.match((await post('/dictate', { path: JFK })).body, { stored: true, storeError: null })
    t.equal((await get('/history')).count, 2)

    const check = new BetterSqlite3(path.join(dataDir, DATABASE_FILE), { readonly: true })
    t.equal(check.pragma('integrity_check', { simple: true }), 'ok', 'integrity_check')
    check.close()
  },
)
