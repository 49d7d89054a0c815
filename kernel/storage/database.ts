/**
 * The SQLite database in `dataDir`: opened in WAL mode, migrated to the newest schema version on open.
 * Owned by the app container; `close()` checkpoints and closes it.
 */
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { migrations } from './migrations.ts'

export type Db = BetterSqlite3.Database

export const DATABASE_FILE = 'dictum.db'

export interface OpenOptions {
  dataDir: string
  /** Use an in-memory database (benchmarks only; tests use real files). */
  memory?: boolean
}

export function openDatabase(options: OpenOptions): Db {
  let file = ':memory:'
  if (!options.memory) {
    mkdirSync(options.dataDir, { recursive: true })
    file = path.join(options.dataDir, DATABASE_FILE)
  }
  const db = new BetterSqlite3(file)
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
    // Another dictum process (the CLI while the server runs) may hold the write lock briefly.
    db.pragma('busy_timeout = 5000')
    migrate(db)
  } catch (err) {
    db.close()
    throw err
  }
  return db
}

/** Applies every migration newer than the database's `user_version`, each in its own transaction. */
export function migrate(db: Db): number {
  const current = db.pragma('user_version', { simple: true }) as number
  if (current > migrations.length) {
    throw new Error(
      `database schema version ${current} is newer than this dictum knows (${migrations.length}); upgrade dictum`,
    )
  }
  for (let version = current; version < migrations.length; version++) {
    const step = migrations[version]!
    db.transaction(() => {
      db.exec(step)
      db.pragma(`user_version = ${version + 1}`)
    }).immediate()
  }
  return migrations.length
}
