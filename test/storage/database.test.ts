/**
 * The SQLite database: migration on open, refusal of a newer schema. Several processes opening it at once:
 * test/process/database-open-race.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t, { type Test } from 'tap'
import { dictionaryMigrations } from '../../dictionary/migrations.ts'
import { historyMigrations } from '../../history/migrations.ts'
import { TABLES } from '../../server/app.ts'
import { DATABASE_FILE, openDatabase } from '../../storage/database.ts'
import { BOOKKEEPING_VERSION, featureVersions, migrate } from '../../storage/migrations.ts'

function tempDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-db-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Every feature's tables at their newest version. */
const NEWEST = Object.fromEntries(TABLES.map(({ feature, migrations }) => [feature, migrations.length]))

const tables = (db: BetterSqlite3.Database): string[] =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string
    }[]
  ).map((row) => row.name)

t.test('a fresh data dir is created and migrated to the newest version, in WAL mode', async (t) => {
  const dataDir = path.join(tempDir(t), 'nested', 'data')
  const db = openDatabase({ dataDir, features: TABLES })
  t.equal(db.pragma('user_version', { simple: true }), BOOKKEEPING_VERSION)
  t.same(featureVersions(db), NEWEST)
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal')
  t.ok(tables(db).includes('replacement_rules'), 'dictionary table exists')
  db.prepare(
    "INSERT INTO custom_words (id, text_key, position, text, aliases) VALUES ('0b6c1f5e-8a8e-4c1e-9f4a-2d1c3b4a5e6f', 'kubernetes', 0, 'Kubernetes', '[]')",
  ).run()
  db.close()

  const again = openDatabase({ dataDir, features: TABLES })
  migrate(again, TABLES)
  t.same(featureVersions(again), NEWEST, 'reopening applies nothing')
  t.same(again.prepare('SELECT text FROM custom_words').all(), [{ text: 'Kubernetes' }], 'data is kept')
  again.close()
})

t.test('a database from before features owned their tables is taken over as it is', async (t) => {
  // What dictum made before: one migration with every table, user_version 1.
  const dataDir = tempDir(t)
  const legacy = new BetterSqlite3(path.join(dataDir, DATABASE_FILE))
  legacy.exec(dictionaryMigrations[0]! + historyMigrations[0]!)
  legacy.pragma('user_version = 1')
  legacy
    .prepare(
      `INSERT INTO history (id, timestamp_ms, raw_text, final_text, character_count, was_ai_processed)
       VALUES ('a', 1, 'hello', 'hello', 5, 0)`,
    )
    .run()
  legacy.close()
  const db = openDatabase({ dataDir, features: TABLES })
  t.equal(db.pragma('user_version', { simple: true }), BOOKKEEPING_VERSION)
  t.same(
    featureVersions(db),
    NEWEST,
    'its tables are taken as version 1 of their features, then migrated to the newest',
  )
  t.same(db.prepare('SELECT raw_text FROM history').all(), [{ raw_text: 'hello' }], 'data is kept')
  db.close()
})

t.test('a feature adds its tables to an existing database, and a newer schema is refused', async (t) => {
  const dataDir = tempDir(t)
  openDatabase({ dataDir, features: TABLES }).close()
  const notes = { feature: 'notes', migrations: ['CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)'] }
  const db = openDatabase({ dataDir, features: [...TABLES, notes] })
  t.ok(tables(db).includes('notes'), 'a new feature gets its table')
  t.same(featureVersions(db), { ...NEWEST, notes: 1 })
  db.close()

  const raw = new BetterSqlite3(path.join(dataDir, DATABASE_FILE))
  raw.prepare("UPDATE feature_versions SET version = 5 WHERE feature = 'history'").run()
  raw.close()
  t.throws(() => openDatabase({ dataDir, features: TABLES }), {
    message: `the history tables are at version 5, newer than this dictum knows (${historyMigrations.length}); upgrade dictum`,
  })
  const newer = new BetterSqlite3(path.join(dataDir, DATABASE_FILE))
  newer.pragma(`user_version = ${BOOKKEEPING_VERSION + 1}`)
  newer.close()
  t.throws(() => openDatabase({ dataDir, features: TABLES }), {
    message: `database schema version ${BOOKKEEPING_VERSION + 1} is newer than this dictum knows (${BOOKKEEPING_VERSION}); upgrade dictum`,
  })
  const check = new BetterSqlite3(path.join(dataDir, DATABASE_FILE))
  t.equal(check.pragma('user_version', { simple: true }), BOOKKEEPING_VERSION + 1, 'left untouched')
  check.close()
})
