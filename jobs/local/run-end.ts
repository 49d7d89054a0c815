/**
 * How a local run ended, as it is written to its job's record: decided once when the run ends, then written
 * (again and again, by the backend, while the database refuses writes: a full disk) until it is recorded.
 */

import { DictumError, isDictumError } from '../../errors/catalogue.ts'
import type { PluginLogger } from '../../kernel/contracts/engine.ts'
import { redact } from '../../lib/secrets.ts'
import { isRetryable, type JobError, type JobRecord, type JobResult, type JobRunner } from '../types.ts'
import type { JobStore } from './store.ts'

export type Outcome =
  | { state: 'completed'; result: JobResult; runner: JobRunner }
  | { state: 'cancelled' }
  | { state: 'queued'; error: JobError }
  | { state: 'failed'; error: JobError }

/**
 * A write that failed (a full disk, a read-only or locked database) is tried again after these pauses,
 * doubled from the first to the last: a claim while jobs wait, the end of a run until it is recorded.
 */
export const WRITE_RETRY_FIRST_MS = 250
export const WRITE_RETRY_MAX_MS = 15_000

/** The pause after `previous` (0: none yet) before a failed write is tried again. */
export function nextDelay(previous: number): number {
  return previous === 0 ? WRITE_RETRY_FIRST_MS : Math.min(previous * 2, WRITE_RETRY_MAX_MS)
}

/** A run that threw: cancelled, queued again (a failure that may pass, attempts left) or failed. */
export function failureOutcome(
  job: JobRecord,
  error: unknown,
  signal: AbortSignal,
  logger: PluginLogger,
): Outcome {
  const reason = signal.aborted ? signal.reason : error
  if (isDictumError(reason) && reason.code === 'JOB_CANCELLED') return { state: 'cancelled' }
  const described = describeError(error)
  const again = isRetryable(error) && job.attempts < job.maxAttempts
  logger.warn(
    { job: job.id, attempts: job.attempts, error: described.message },
    again ? 'job failed: queued again' : 'job failed',
  )
  return { state: again ? 'queued' : 'failed', error: described }
}

/** The outcome as one write (run it in a transaction); false when the job was no longer active. */
export function writeOutcome(store: JobStore, id: string, outcome: Outcome): boolean {
  const now = Date.now()
  switch (outcome.state) {
    case 'completed':
      return store.complete(id, outcome.result, outcome.runner, now)
    case 'cancelled':
      return store.cancel(id, ['active'], now)
    case 'queued':
      return store.requeue(id, outcome.error)
    case 'failed':
      return store.fail(id, outcome.error, now)
  }
}

/** The error kept in the job's record (and logged): through the one redaction, whatever it quotes. */
export function describeError(error: unknown): JobError {
  if (error instanceof DictumError) return { code: error.code, message: redact(error.message) }
  return { code: 'INTERNAL', message: redact(error instanceof Error ? error.message : String(error)) }
}
