/**
 * writeTransaction and the meaning of SQLite failures, on a real database file: a write waits for another
 * connection's lock with awaits (the event loop runs meanwhile) and succeeds once it is released; a failing
 * write leaves nothing; SQLite's result codes become catalogue errors.
 */
import path from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t, { type Test } from 'tap'
import { errors, isDictumError } from '../../errors/catalogue.ts'
import { TABLES } from '../../server/app.ts'
import { DATABASE_FILE, openDatabase } from '../../storage/database.ts'
import { sqliteFailure, storageFailure } from '../../storage/failures.ts'
import { writeTransaction } from '../../storage/write.ts'
import { tempDir } from '../helpers/build.ts'

function database(t: Test) {
  const dataDir = tempDir(t)
  const db = openDatabase({ dataDir, features: TABLES })
  t.teardown(() => db.close())
  const file = path.join(dataDir, DATABASE_FILE)
  const insert = db.prepare(
    "INSERT INTO custom_words (id, text_key, position, text, aliases) VALUES (lower(hex(randomblob(16))), ?, 0, ?, '[]')",
  )
  const words = () => (db.prepare('SELECT text FROM custom_words').pluck().all() as string[]).sort()
  return { db, file, insert, words }
}

t.test(
  'a write waits for another connection’s lock without blocking, and is stored once it is released',
  async (t) => {
    const { db, file, insert, words } = database(t)
    const other = new BetterSqlite3(file)
    t.teardown(() => other.close())
    other.exec('BEGIN IMMEDIATE')

    // The lock is released by the event loop's own timers, after ten of them ran: a write that waited inside
    // the call (SQLite sleeping in busy_timeout, as before) would hold the loop, so the lock would never be
    // released and the write would fail. No timing: a busy machine only makes the ten turns later.
    let ticks = 0
    const ticker = setInterval(() => {
      if (++ticks === 10) other.exec('COMMIT')
    }, 10)
    t.teardown(() => clearInterval(ticker))
    const result = await writeTransaction(db, () => insert.run('waited', 'waited').changes)
    clearInterval(ticker)

    t.equal(result, 1, 'the transaction’s result')
    t.ok(ticks >= 10, `stored only once the tenth timer turn released the lock (${ticks} turns)`)
    t.same(words(), ['waited'])
  },
)

t.test('a write that fails halfway leaves nothing, and its own error passes through', async (t) => {
  const { db, insert, words } = database(t)
  const failure = new Error('the second half failed')
  await t.rejects(
    writeTransaction(db, () => {
      insert.run('first', 'first')
      throw failure
    }),
    failure,
  )
  t.same(words(), [], 'rolled back')
  const duplicate = writeTransaction(db, () => {
    insert.run('same', 'same')
    insert.run('same', 'same')
  })
  await t.rejects(duplicate, { code: 'STORAGE_FAILED', statusCode: 500, message: 'Storage error.' })
  t.same(words(), [], 'a constraint failure on the second row leaves no first row')
  await writeTransaction(db, () => insert.run('later', 'later'))
  t.same(words(), ['later'], 'the connection is usable after failures')
})

t.test('SQLite failures become the catalogue errors that name them', async (t) => {
  const { file } = database(t)
  const readonly = new BetterSqlite3(file, { readonly: true })
  t.teardown(() => readonly.close())
  const write = writeTransaction(readonly, () =>
    readonly
      .prepare(
        "INSERT INTO custom_words (id, text_key, position, text, aliases) VALUES ('x-id', 'x', 0, 'x', '[]')",
      )
      .run(),
  )
  await t.rejects(write, {
    code: 'DATABASE_READONLY',
    statusCode: 503,
    message: errors.DATABASE_READONLY().message,
  })

  const named = (code: string) => sqliteFailure(new BetterSqlite3.SqliteError('sqlite says', code))
  t.match(named('SQLITE_BUSY'), { code: 'DATABASE_BUSY', statusCode: 503 })
  t.match(named('SQLITE_BUSY_SNAPSHOT'), { code: 'DATABASE_BUSY' })
  t.match(named('SQLITE_FULL'), { code: 'DISK_FULL', statusCode: 507 })
  t.match(named('SQLITE_READONLY_DBMOVED'), { code: 'DATABASE_READONLY' })
  t.match(named('SQLITE_IOERR_WRITE'), { code: 'DATABASE_IO_ERROR', statusCode: 500 })
  t.match(named('SQLITE_CORRUPT'), { code: 'STORAGE_FAILED', statusCode: 500 })
  t.equal(
    named('SQLITE_FULL')?.cause instanceof BetterSqlite3.SqliteError,
    true,
    'the cause is kept for the log',
  )
  t.equal(sqliteFailure(new Error('not sqlite')), null)

  const own = errors.DISK_FULL()
  t.equal(storageFailure(own), own, 'a catalogue error stays itself')
  const other = storageFailure(new TypeError('bug'))
  t.ok(isDictumError(other))
  t.equal(other.code, 'STORAGE_FAILED')
})
