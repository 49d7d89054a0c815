/**
 * What a SQLite failure means for whoever asked: SQLite's result codes become catalogue errors that name the
 * cause and the fix (busy, disk full, read-only, I/O), so a client gets a specific status instead of a generic
 * 500. The original error stays the `cause`, for the log.
 */
import BetterSqlite3 from 'better-sqlite3'
import { type DictumError, errors, isDictumError } from '../errors/catalogue.ts'

/** SQLite's (extended) result code of an error better-sqlite3 threw, e.g. `SQLITE_BUSY`, `SQLITE_IOERR_WRITE`. */
function sqliteCode(error: unknown): string | null {
  return error instanceof BetterSqlite3.SqliteError ? error.code : null
}

/** Another connection holds the lock this statement needs. */
export function isBusy(error: unknown): boolean {
  const code = sqliteCode(error)
  return code !== null && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
}

/** The catalogue error for a SQLite failure, or null when `error` is not one. */
export function sqliteFailure(error: unknown): DictumError | null {
  const code = sqliteCode(error)
  if (code === null) return null
  const options = { cause: error }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return errors.DATABASE_BUSY(undefined, options)
  if (code === 'SQLITE_FULL') return errors.DISK_FULL(undefined, options)
  if (code.startsWith('SQLITE_READONLY')) return errors.DATABASE_READONLY(undefined, options)
  if (code.startsWith('SQLITE_IOERR')) return errors.DATABASE_IO_ERROR(undefined, options)
  return errors.STORAGE_FAILED(undefined, options)
}

/** Why storing failed, as a catalogue error: a catalogue error as it is, a SQLite one translated, else STORAGE_FAILED. */
export function storageFailure(error: unknown): DictumError {
  if (isDictumError(error)) return error
  return sqliteFailure(error) ?? errors.STORAGE_FAILED(undefined, { cause: error })
}
