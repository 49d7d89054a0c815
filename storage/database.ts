/**
 * The SQLite database in `dataDir`: opened in WAL mode, migrated to the newest schema version on open.
 * Owned by the app container; `close()` checkpoints and closes it. Writes go through `writeTransaction`
 * (write.ts).
 */
import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { type FeatureMigrations, migrate } from './migrations.ts'

export type Db = BetterSqlite3.Database

export const DATABASE_FILE = 'dictum.db'

export interface OpenOptions {
  dataDir: string
  /** The tables of the features that have some (see migrations.ts). */
  features: readonly FeatureMigrations[]
  /** Use an in-memory database (benchmarks only; tests use real files). */
  memory?: boolean
}

export function openDatabase(options: OpenOptions): Db {
  let file = ':memory:'
  if (!options.memory) {
    mkdirSync(options.dataDir, { recursive: true })
    file = path.join(options.dataDir, DATABASE_FILE)
  }
  const db = new BetterSqlite3(file, { nativeBinding: nativeBinding() })
  try {
    // Another dictum process (the CLI while the server runs, or two CLI commands started together on a
    // fresh data dir) may hold the write lock briefly: while opening, statements wait up to BUSY_TIMEOUT_MS.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    // Switching to WAL needs the database to itself, and SQLite answers SQLITE_BUSY at once there instead
    // of waiting, so that step is retried. WAL is persistent: later opens find it set and skip this.
    whileBusy(() => {
      if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL')
    })
    db.pragma('synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
    whileBusy(() => migrate(db, options.features))
    // From now on the connection serves requests: a statement that meets another process's lock fails at once
    // (SQLITE_BUSY) instead of SQLite sleeping for it on the event loop, which froze every request for the
    // whole timeout. Writes go through writeTransaction (write.ts), which waits for the lock with awaits;
    // reads in WAL mode never wait for a writer.
    db.pragma('busy_timeout = 0')
  } catch (err) {
    db.close()
    throw err
  }
  return db
}

const BUSY_TIMEOUT_MS = 5000
const sleeper = new Int32Array(new SharedArrayBuffer(4))

/** Runs `step`, again after a short randomised pause while SQLite reports SQLITE_BUSY, for BUSY_TIMEOUT_MS. */
function whileBusy<T>(step: () => T): T {
  const deadline = Date.now() + BUSY_TIMEOUT_MS
  for (;;) {
    try {
      return step()
    } catch (err) {
      const code = (err as { code?: unknown }).code
      const busy = typeof code === 'string' && code.startsWith('SQLITE_BUSY')
      if (!busy || Date.now() >= deadline) throw err
      // Opening is synchronous (the app container builds the database), so the pause blocks; it only
      // happens when several processes open the same fresh database at once.
      Atomics.wait(sleeper, 0, 0, 2 + Math.random() * 8)
    }
  }
}

let addonFile: string | null = null

/**
 * better-sqlite3's compiled addon, where its install puts it (built or downloaded). Named here because the
 * installed package bundles better-sqlite3's JavaScript (scripts/build.ts), and its own lookup (the
 * `bindings` package) searches from the file that calls it, which is then dictum's bundle.
 */
function nativeBinding(): string {
  addonFile ??= createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node')
  return addonFile
}
