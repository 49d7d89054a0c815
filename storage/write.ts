/**
 * Write transactions that wait for another process's lock without holding up the event loop. The connection's
 * busy_timeout is 0 (see database.ts): SQLite answers SQLITE_BUSY at once instead of sleeping inside the
 * call, and the transaction is tried again after a short await, for WRITE_BUSY_BUDGET_MS; then it is refused
 * with DATABASE_BUSY (503, Retry-After). Meanwhile every other request is served. Each try is one IMMEDIATE
 * transaction, so a refused or failed write leaves nothing behind.
 */

import { errors } from '../errors/catalogue.ts'
import { sleep } from '../lib/timeout.ts'
import type { Db } from './database.ts'
import { isBusy, sqliteFailure } from './failures.ts'

/**
 * How long a write waits for another process's lock. dictum's own writes hold it for milliseconds (a
 * 1000-rule dictionary import included), so a lock held longer is someone else's long transaction.
 */
export const WRITE_BUSY_BUDGET_MS = 2000

/**
 * Runs `work` (synchronous statements) as one IMMEDIATE transaction and returns its result; tries again
 * while the database is locked by another connection. SQLite failures become catalogue errors (DATABASE_BUSY,
 * DISK_FULL, …); errors thrown by `work` itself pass through. Without contention the transaction runs and
 * commits before this returns its promise.
 */
export async function writeTransaction<T>(db: Db, work: () => T): Promise<T> {
  const transaction = db.transaction(work)
  const deadline = performance.now() + WRITE_BUSY_BUDGET_MS
  for (;;) {
    try {
      return transaction.immediate()
    } catch (error) {
      if (!isBusy(error)) throw sqliteFailure(error) ?? error
      if (performance.now() >= deadline) throw errors.DATABASE_BUSY(undefined, { cause: error })
      // Random pauses, so that several waiting writers do not retry in step.
      await sleep(10 + Math.random() * 40)
    }
  }
}
