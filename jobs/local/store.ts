/**
 * The local backend's jobs in SQLite (table `jobs`, jobs/migrations.ts). Synchronous statements; the backend
 * runs the writes through writeTransaction. A job's spec (input, formats, hints) is one JSON column, its
 * error, result and runner one each: they are read and written whole.
 */
import { randomBytes } from 'node:crypto'
import { errors } from '../../errors/catalogue.ts'
import type { Db } from '../../storage/database.ts'
import type {
  JobError,
  JobListQuery,
  JobPage,
  JobRecord,
  JobResult,
  JobRunner,
  JobSpec,
  JobState,
} from '../types.ts'

interface Row {
  seq: number
  id: string
  state: JobState
  priority: number
  idempotency_key: string | null
  batch_id: string | null
  spec: string
  progress: number
  attempts: number
  max_attempts: number
  interruptions: number
  error: string | null
  result: string | null
  runner: string | null
  created_ms: number
  started_ms: number | null
  finished_ms: number | null
}

type StoredSpec = Pick<JobSpec, 'input' | 'formats' | 'language' | 'prompt'>

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'

/** `job_` and 20 random base32 characters (100 bits). */
export function newJobId(): string {
  const bytes = randomBytes(20)
  let id = 'job_'
  for (const byte of bytes) id += BASE32[byte & 31]
  return id
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

function toRecord(row: Row): JobRecord {
  const spec = JSON.parse(row.spec) as StoredSpec
  return {
    id: row.id,
    state: row.state,
    progress: row.progress,
    input: spec.input,
    formats: spec.formats,
    priority: row.priority,
    idempotencyKey: row.idempotency_key,
    batchId: row.batch_id,
    language: spec.language,
    prompt: spec.prompt,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    error: row.error === null ? null : (JSON.parse(row.error) as JobError),
    result: row.result === null ? null : (JSON.parse(row.result) as JobResult),
    runner: row.runner === null ? null : (JSON.parse(row.runner) as JobRunner),
    createdAt: iso(row.created_ms) as string,
    startedAt: iso(row.started_ms),
    finishedAt: iso(row.finished_ms),
  }
}

export class JobStore {
  readonly #db: Db

  constructor(db: Db) {
    this.#db = db
  }

  get(id: string): JobRecord | null {
    const row = this.#db.prepare<[string], Row>('SELECT * FROM jobs WHERE id = ?').get(id)
    return row ? toRecord(row) : null
  }

  byKey(key: string): JobRecord | null {
    const row = this.#db.prepare<[string], Row>('SELECT * FROM jobs WHERE idempotency_key = ?').get(key)
    return row ? toRecord(row) : null
  }

  insert(spec: JobSpec, maxAttempts: number, nowMs: number): JobRecord {
    const id = newJobId()
    const stored: StoredSpec = {
      input: spec.input,
      formats: spec.formats,
      language: spec.language,
      prompt: spec.prompt,
    }
    this.#db
      .prepare(
        `INSERT INTO jobs (id, state, priority, idempotency_key, batch_id, spec, max_attempts, created_ms)
         VALUES (?, 'queued', ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, spec.priority, spec.idempotencyKey, spec.batchId, JSON.stringify(stored), maxAttempts, nowMs)
    return this.get(id) as JobRecord
  }

  /** Newest first; the cursor is the `seq` of the last job of the previous page. */
  list(query: JobListQuery): JobPage {
    const states = query.states ?? []
    const where: string[] = []
    const params: (string | number)[] = []
    if (states.length > 0) {
      where.push(`state IN (${states.map(() => '?').join(', ')})`)
      params.push(...states)
    }
    if (query.cursor) {
      if (!/^[1-9]\d{0,15}$/.test(query.cursor)) {
        throw errors.INVALID_REQUEST('cursor must be the nextCursor of a previous page.', {
          extra: { param: 'cursor' },
        })
      }
      where.push('seq < ?')
      params.push(Number(query.cursor))
    }
    const sql = `SELECT * FROM jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`
    const rows = this.#db.prepare<(string | number)[], Row>(sql).all(...params, query.limit + 1)
    const page = rows.slice(0, query.limit)
    const more = rows.length > query.limit
    return { jobs: page.map(toRecord), nextCursor: more ? String(page.at(-1)?.seq) : null }
  }

  /**
   * Takes the next queued job (highest priority, then one no crash interrupted, then oldest) and marks it
   * active: one more attempt.
   */
  claimNext(runner: JobRunner, nowMs: number): JobRecord | null {
    const next = this.#db
      .prepare<[], { id: string }>(
        "SELECT id FROM jobs WHERE state = 'queued' ORDER BY priority DESC, interruptions > 0, seq LIMIT 1",
      )
      .get()
    if (!next) return null
    this.#db
      .prepare(
        `UPDATE jobs SET state = 'active', attempts = attempts + 1, progress = 0, started_ms = ?, runner = ?
         WHERE id = ?`,
      )
      .run(nowMs, JSON.stringify(runner), next.id)
    return this.get(next.id)
  }

  setProgress(id: string, progress: number): void {
    this.#db.prepare("UPDATE jobs SET progress = ? WHERE id = ? AND state = 'active'").run(progress, id)
  }

  /** The end of an active job's run; each returns false when the job was not active. */
  complete(id: string, result: JobResult, runner: JobRunner, nowMs: number): boolean {
    const info = this.#db
      .prepare(
        `UPDATE jobs SET state = 'completed', progress = 1, result = ?, runner = ?, error = NULL, finished_ms = ?
         WHERE id = ? AND state = 'active'`,
      )
      .run(JSON.stringify(result), JSON.stringify(runner), nowMs, id)
    return info.changes > 0
  }

  /** Back to the queue after a retryable failure (the error is kept for the record); its run ended, no crash. */
  requeue(id: string, error: JobError): boolean {
    const info = this.#db
      .prepare(
        `UPDATE jobs SET state = 'queued', progress = 0, error = ?, interruptions = 0
         WHERE id = ? AND state = 'active'`,
      )
      .run(JSON.stringify(error), id)
    return info.changes > 0
  }

  /** Back to the queue, the run not counted: the service stopped it (a clean stop is no job's fault). */
  release(ids: readonly string[]): void {
    const statement = this.#db.prepare(
      "UPDATE jobs SET state = 'queued', progress = 0, attempts = attempts - 1 WHERE id = ? AND state = 'active'",
    )
    for (const id of ids) statement.run(id)
  }

  fail(id: string, error: JobError, nowMs: number): boolean {
    const info = this.#db
      .prepare(
        "UPDATE jobs SET state = 'failed', error = ?, finished_ms = ? WHERE id = ? AND state = 'active'",
      )
      .run(JSON.stringify(error), nowMs, id)
    return info.changes > 0
  }

  /** Cancels the job if it is in one of `from`; true when it was. */
  cancel(id: string, from: readonly JobState[], nowMs: number): boolean {
    const info = this.#db
      .prepare(
        `UPDATE jobs SET state = 'cancelled', finished_ms = ? WHERE id = ? AND state IN (${from.map(() => '?').join(', ')})`,
      )
      .run(nowMs, id, ...from)
    return info.changes > 0
  }

  /**
   * Jobs a stopped process left active (a crash, or a stop that could not write them back). Such a run is
   * not counted against its job, which is queued again, unless the job is the likely cause: it was running
   * at each of its last `maxAttempts` crashes (consecutive crashes of the service; jobs run in turns after
   * one, see claimNext, so an innocent job is seldom at each). Such a job fails with `blamed`, its
   * interrupted runs counted, never more than its maximum. Returns the ids of both kinds.
   */
  recoverActive(
    interrupted: JobError,
    blamed: JobError,
    nowMs: number,
  ): { requeued: string[]; failed: string[] } {
    const active = this.#db
      .prepare<[], { id: string; attempts: number; max_attempts: number; interruptions: number }>(
        "SELECT id, attempts, max_attempts, interruptions FROM jobs WHERE state = 'active'",
      )
      .all()
    if (active.length === 0) return { requeued: [], failed: [] } // a clean stop: no crash
    // The waiting jobs were not running at this crash: their run of consecutive crashes is over.
    this.#db.prepare("UPDATE jobs SET interruptions = 0 WHERE state = 'queued' AND interruptions > 0").run()
    const requeued: string[] = []
    const failed: string[] = []
    for (const job of active) {
      const streak = job.interruptions + 1
      if (streak < job.max_attempts) {
        this.#db
          .prepare(
            `UPDATE jobs SET state = 'queued', progress = 0, error = ?, attempts = attempts - 1, interruptions = ?
             WHERE id = ?`,
          )
          .run(JSON.stringify(interrupted), streak, job.id)
        requeued.push(job.id)
      } else {
        // This run and the interrupted ones before it (given back then) count now.
        const attempts = Math.min(job.max_attempts, job.attempts + job.interruptions)
        this.#db
          .prepare(
            `UPDATE jobs SET state = 'failed', error = ?, finished_ms = ?, attempts = ?, interruptions = ?
             WHERE id = ?`,
          )
          .run(JSON.stringify(blamed), nowMs, attempts, streak, job.id)
        failed.push(job.id)
      }
    }
    return { requeued, failed }
  }
}
