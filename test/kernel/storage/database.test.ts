/** The SQLite database: migration on open, refusal of a newer schema, several processes opening it at once. */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import BetterSqlite3 from 'better-sqlite3'
import t, { type Test } from 'tap'
import { DATABASE_FILE, migrate, openDatabase } from '../../../kernel/storage/database.ts'
import { migrations } from '../../../kernel/storage/migrations.ts'

const OPENER = fileURLToPath(new URL('../../fixtures/open-database.ts', import.meta.url))

function tempDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-db-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const tables = (db: BetterSqlite3.Database): string[] =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string
    }[]
  ).map((row) => row.name)

t.test('a fresh data dir is created and migrated to the newest version, in WAL mode', async (t) => {
  const dataDir = path.join(tempDir(t), 'nested', 'data')
  const db = openDatabase({ dataDir })
  t.equal(db.pragma('user_version', { simple: true }), migrations.length)
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal')
  t.ok(tables(db).includes('replacement_rules'), 'dictionary table exists')
  db.prepare(
    "INSERT INTO custom_words (text_key, position, text, aliases) VALUES ('kubernetes', 0, 'Kubernetes', '[]')",
  ).run()
  db.close()

  const again = openDatabase({ dataDir })
  t.equal(migrate(again), migrations.length, 'reopening applies nothing')
  t.same(again.prepare('SELECT text FROM custom_words').all(), [{ text: 'Kubernetes' }], 'data is kept')
  again.close()
})

t.test('a schema newer than this dictum is refused and left untouched', async (t) => {
  const dataDir = tempDir(t)
  openDatabase({ dataDir }).close()
  const raw = new BetterSqlite3(path.join(dataDir, DATABASE_FILE))
  raw.pragma(`user_version = ${migrations.length + 1}`)
  raw.close()
  t.throws(() => openDatabase({ dataDir }), {
    message: `database schema version ${migrations.length + 1} is newer than this dictum knows (${migrations.length}); upgrade dictum`,
  })
  const check = new BetterSqlite3(path.join(dataDir, DATABASE_FILE))
  t.equal(check.pragma('user_version', { simple: true }), migrations.length + 1)
  check.close()
})

function openInChild(
  dataDir: string,
  startAt: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', OPENER, dataDir, String(startAt)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

t.test(
  'processes that open one fresh data dir at the same instant all succeed, migrating it once',
  async (t) => {
    // Two CLI commands started together on a new data dir used to race: both saw version 0 and the second
    // failed with "table replacement_rules already exists".
    for (let round = 0; round < 3; round++) {
      const dataDir = tempDir(t)
      // Loading tsx takes a few hundred ms per child; start them all well after that.
      const startAt = Date.now() + 2500
      const results = await Promise.all(Array.from({ length: 6 }, () => openInChild(dataDir, startAt)))
      for (const [i, result] of results.entries()) {
        t.equal(result.code, 0, `round ${round}, process ${i}: ${result.stderr}`)
        t.equal(result.stdout, String(migrations.length))
      }
      const db = openDatabase({ dataDir })
      t.ok(tables(db).includes('history'), 'schema complete')
      db.close()
    }
  },
)
