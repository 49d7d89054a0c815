/**
 * The local backend (`jobs.backend = "local"`, the default): jobs kept in the app's SQLite database and run in
 * this process by the executor, `jobs.concurrency` at a time (read live), highest priority first, then in
 * submission order. Durable: a job a stopped process left active is queued again at the next start (the
 * interrupted run counts as an attempt); after `jobs.attempts` runs a job fails with its last reason.
 */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { DictumError, errors, isDictumError } from '../../kernel/errors.ts'
import { writeTransaction } from '../../kernel/storage/write.ts'
import { redact } from '../../lib/secrets.ts'
import type { BackendDeps } from '../backend.ts'
import { thisRunner } from '../executor.ts'
import { type JobListener, JobListeners } from '../listeners.ts'
import { resultsDirOf } from '../paths.ts'
import {
  isFinal,
  isRetryable,
  type JobBackend,
  type JobError,
  type JobEvent,
  type JobListQuery,
  type JobPage,
  type JobRecord,
  type JobSpec,
} from '../types.ts'
import { WorkerStats, type WorkerStatus } from '../worker-stats.ts'
import { JobStore } from './store.ts'

interface Run {
  controller: AbortController
  done: Promise<void>
}

export class LocalJobBackend implements JobBackend {
  readonly kind = 'local'
  readonly #deps: BackendDeps
  readonly #store: JobStore
  readonly #running = new Map<string, Run>()
  readonly #stats = new WorkerStats()
  readonly #listeners = new JobListeners()
  #started = false
  #closed = false
  /** One claim loop at a time: two would race for the same free slot. */
  #pumping: Promise<void> | null = null
  #pumpAgain = false

  constructor(deps: BackendDeps) {
    this.#deps = deps
    this.#store = new JobStore(deps.db)
  }

  async start(): Promise<void> {
    if (this.#started || this.#closed) return
    this.#started = true
    const interrupted = {
      code: 'JOB_INTERRUPTED',
      message: errors.JOB_INTERRUPTED('the service stopped while it ran.').message,
    }
    const { requeued, failed } = await writeTransaction(this.#deps.db, () =>
      this.#store.recoverActive(interrupted, Date.now()),
    )
    if (requeued.length + failed.length > 0) {
      this.#deps.logger.info({ requeued, failed }, 'jobs left active by a stopped process recovered')
    }
    for (const id of failed) this.#emit('failed', id)
    this.#pump()
  }

  async submit(spec: JobSpec): Promise<{ job: JobRecord; created: boolean }> {
    this.#checkOpen()
    const maxAttempts = this.#deps.configStore.current.jobs.attempts
    const outcome = await writeTransaction(this.#deps.db, () => {
      const existing = spec.idempotencyKey === null ? null : this.#store.byKey(spec.idempotencyKey)
      if (existing) return { job: existing, created: false }
      return { job: this.#store.insert(spec, maxAttempts, Date.now()), created: true }
    })
    if (outcome.created) this.#pump()
    return outcome
  }

  async get(id: string): Promise<JobRecord | null> {
    return this.#store.get(id)
  }

  async list(query: JobListQuery): Promise<JobPage> {
    return this.#store.list(query)
  }

  async cancel(id: string): Promise<JobRecord | null> {
    this.#checkOpen()
    const job = this.#store.get(id)
    if (!job || isFinal(job.state)) return job
    const run = this.#running.get(id)
    if (run) {
      // The run ends on the abort and records the cancellation itself (it may also have just finished).
      run.controller.abort(errors.JOB_CANCELLED())
      await run.done
    } else if (
      await writeTransaction(this.#deps.db, () => this.#store.cancel(id, ['queued', 'active'], Date.now()))
    ) {
      await this.#afterFinal(job)
      this.#emit('cancelled', id)
    }
    return this.#store.get(id)
  }

  subscribe(id: string, listener: JobListener): () => void {
    return this.#listeners.add(id, listener)
  }

  /**
   * Stops taking jobs and aborts the runs in progress; their records stay active, so the next start queues
   * them again (as after a crash: one path for both).
   */
  /** This process: the service runs its jobs itself. */
  async workers(): Promise<WorkerStatus[]> {
    const config = this.#deps.configStore.current
    return [
      this.#stats.status({
        engine: config.speech.engine,
        concurrency: config.jobs.concurrency,
        active: this.#running.size,
      }),
    ]
  }

  async close(): Promise<void> {
    this.#closed = true
    const runs = [...this.#running.values()]
    for (const run of runs) run.controller.abort(errors.JOB_INTERRUPTED('the service is stopping.'))
    await Promise.allSettled(runs.map((run) => run.done))
    await this.#pumping
    this.#listeners.clear()
  }

  #checkOpen(): void {
    if (this.#closed) throw errors.JOBS_UNAVAILABLE('the service is stopping.')
  }

  /** Starts queued jobs while fewer than `jobs.concurrency` run. */
  #pump(): void {
    if (!this.#started || this.#closed) return
    if (this.#pumping) {
      this.#pumpAgain = true
      return
    }
    this.#pumping = (async () => {
      do {
        this.#pumpAgain = false
        while (!this.#closed && this.#running.size < this.#deps.configStore.current.jobs.concurrency) {
          const runner = thisRunner('local')
          const job = await writeTransaction(this.#deps.db, () => this.#store.claimNext(runner, Date.now()))
          if (!job) break
          this.#launch(job)
        }
      } while (this.#pumpAgain && !this.#closed)
    })()
      .catch((error) => this.#deps.logger.error({ err: error }, 'jobs: could not take the next job'))
      .finally(() => {
        this.#pumping = null
      })
  }

  #launch(job: JobRecord): void {
    const controller = new AbortController()
    const run: Run = { controller, done: Promise.resolve() }
    this.#running.set(job.id, run)
    this.#emit('active', job.id)
    run.done = this.#execute(job, controller.signal).finally(() => {
      this.#running.delete(job.id)
      this.#pump()
    })
  }

  async #execute(job: JobRecord, signal: AbortSignal): Promise<void> {
    const { db, executor, logger } = this.#deps
    const runner = job.runner ?? thisRunner('local')
    const started = performance.now()
    const runSeconds = () => (performance.now() - started) / 1000
    try {
      const result = await executor.run(job, {
        signal,
        onProgress: (fraction) => {
          if (this.#closed || signal.aborted) return
          this.#store.setProgress(job.id, fraction)
          this.#emit('progress', job.id)
        },
      })
      if (this.#closed) return
      if (signal.aborted) throw signal.reason
      await writeTransaction(db, () =>
        this.#store.complete(job.id, result, { ...runner, engine: result.engine }, Date.now()),
      )
      this.#stats.count(result.durationSeconds, runSeconds())
      await this.#afterFinal(job)
      this.#emit('completed', job.id)
    } catch (error) {
      // Closing: the record stays active and the next start queues it again.
      if (this.#closed) return
      this.#stats.count(0, runSeconds())
      await this.#recordFailure(job, error, signal).catch((failure) =>
        logger.error({ err: failure, job: job.id }, 'jobs: could not record the end of a job'),
      )
    }
  }

  async #recordFailure(job: JobRecord, error: unknown, signal: AbortSignal): Promise<void> {
    const { db, logger } = this.#deps
    const reason = signal.aborted ? signal.reason : error
    if (isDictumError(reason) && reason.code === 'JOB_CANCELLED') {
      await writeTransaction(db, () => this.#store.cancel(job.id, ['active'], Date.now()))
      await this.#afterFinal(job)
      this.#emit('cancelled', job.id)
      return
    }
    const described = describe(error)
    if (isRetryable(error) && job.attempts < job.maxAttempts) {
      logger.warn(
        { job: job.id, attempt: job.attempts, error: described.message },
        'job failed: queued again',
      )
      await writeTransaction(db, () => this.#store.requeue(job.id, described))
      this.#emit('queued', job.id)
      return
    }
    logger.warn({ job: job.id, attempts: job.attempts, error: described.message }, 'job failed')
    await writeTransaction(db, () => this.#store.fail(job.id, described, Date.now()))
    await this.#afterFinal(job)
    this.#emit('failed', job.id)
  }

  /** An uploaded file is spooled until its job is over. */
  async #afterFinal(job: JobRecord): Promise<void> {
    if (job.input.kind !== 'upload') return
    await rm(path.join(resultsDirOf(this.#deps.configStore.current), job.input.file), { force: true })
  }

  #emit(type: JobEvent['type'], id: string): void {
    if (!this.#listeners.has(id)) return
    const job = this.#store.get(id)
    if (job) this.#listeners.send(id, { type, job })
  }
}

/** The error kept in the job's record (and logged): through the one redaction, whatever it quotes. */
function describe(error: unknown): JobError {
  if (error instanceof DictumError) return { code: error.code, message: redact(error.message) }
  return { code: 'INTERNAL', message: redact(error instanceof Error ? error.message : String(error)) }
}
