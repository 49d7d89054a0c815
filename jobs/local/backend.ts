/**
 * The local backend (`jobs.backend = "local"`, the default): jobs kept in the app's SQLite database and run in
 * this process by the executor, `jobs.concurrency` at a time (read live), highest priority first, then in
 * submission order. Durable: a stop queues its runs again (not counted as attempts); a job a crashed process
 * left active is queued again at the next start, not counted either unless the job is the likely cause of the
 * crashes (store.ts recoverActive); after `jobs.attempts` runs a job fails with its last reason. A write that
 * fails (a full disk) is tried again on a timer: the claim of a waiting job, the end of a run.
 */

import { rm } from 'node:fs/promises'
import path from 'node:path'
import { sleep } from '../../lib/timeout.ts'
import { writeTransaction } from '../../storage/write.ts'
import { jobsErrors } from '../errors.ts'
import { thisRunner } from '../executor.ts'
import { type JobListener, JobListeners } from '../listeners.ts'
import { resultsDirOf } from '../paths.ts'
import {
  type BackendDeps,
  isFinal,
  type JobBackend,
  type JobEvent,
  type JobListQuery,
  type JobPage,
  type JobRecord,
  type JobSpec,
} from '../types.ts'
import { WorkerStats, type WorkerStatus } from '../worker-stats.ts'
import { describeError, failureOutcome, nextDelay, type Outcome, writeOutcome } from './run-end.ts'
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
  /** The next claim after a claim that could not be written, and the pause before it. */
  #claimRetry: NodeJS.Timeout | null = null
  #claimDelayMs = 0
  /** Aborted by close: pauses between retried writes end at once. */
  readonly #closing = new AbortController()

  constructor(deps: BackendDeps) {
    this.#deps = deps
    this.#store = new JobStore(deps.db)
  }

  async start(): Promise<void> {
    if (this.#started || this.#closed) return
    this.#started = true
    const interrupted = describeError(jobsErrors.JOB_INTERRUPTED('the service stopped while it ran.'))
    const blamed = describeError(
      jobsErrors.JOB_INTERRUPTED(
        'the service stopped while it ran, at each of its last runs (jobs.attempts): the job is the likely cause.',
      ),
    )
    const { requeued, failed } = await writeTransaction(this.#deps.db, () =>
      this.#store.recoverActive(interrupted, blamed, Date.now()),
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
      run.controller.abort(jobsErrors.JOB_CANCELLED())
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

  /** Stops taking jobs, aborts the runs in progress and queues their jobs again (a stop counts against none). */
  async close(): Promise<void> {
    this.#closed = true
    this.#closing.abort(jobsErrors.JOBS_UNAVAILABLE('the service is stopping.'))
    if (this.#claimRetry) clearTimeout(this.#claimRetry)
    const ids = [...this.#running.keys()]
    const runs = [...this.#running.values()]
    for (const run of runs) run.controller.abort(jobsErrors.JOB_INTERRUPTED('the service is stopping.'))
    await Promise.allSettled(runs.map((run) => run.done))
    await this.#pumping
    // Queued again, the run not counted: a stop is no job's fault. A crash instead leaves them active,
    // for the next start to judge (recoverActive), as it does when this write fails.
    await writeTransaction(this.#deps.db, () => this.#store.release(ids)).catch((error: unknown) =>
      this.#deps.logger.warn({ err: error, jobs: ids }, 'jobs: could not queue the stopped runs again'),
    )
    this.#listeners.clear()
  }

  #checkOpen(): void {
    if (this.#closed) throw jobsErrors.JOBS_UNAVAILABLE('the service is stopping.')
  }

  /**
   * Starts queued jobs while fewer than `jobs.concurrency` run. A claim that cannot be written (a full disk)
   * is tried again on a timer, with growing pauses, so waiting jobs start once the database takes writes
   * again, without waiting for a submission or the end of a run.
   */
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
      .then(
        () => {
          this.#claimDelayMs = 0
        },
        (error) => this.#retryClaim(error),
      )
      .finally(() => {
        this.#pumping = null
      })
  }

  #retryClaim(error: unknown): void {
    if (this.#closed) return
    this.#claimDelayMs = nextDelay(this.#claimDelayMs)
    this.#deps.logger.error(
      { err: error, retryInMs: this.#claimDelayMs },
      'jobs: could not take the next job; trying again',
    )
    this.#claimRetry = setTimeout(() => {
      this.#claimRetry = null
      this.#pump()
    }, this.#claimDelayMs)
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
    const runner = job.runner ?? thisRunner('local')
    const started = performance.now()
    const runSeconds = () => (performance.now() - started) / 1000
    let outcome: Outcome
    try {
      const result = await this.#deps.executor.run(job, {
        signal,
        onProgress: (fraction) => this.#progress(job.id, fraction, signal),
      })
      if (this.#closed) return
      if (signal.aborted) throw signal.reason
      this.#stats.count(result.durationSeconds, runSeconds())
      outcome = { state: 'completed', result, runner: { ...runner, engine: result.engine } }
    } catch (error) {
      // Closing: the record stays active and the next start queues it again.
      if (this.#closed) return
      this.#stats.count(0, runSeconds())
      outcome = failureOutcome(job, error, signal, this.#deps.logger)
    }
    await this.#record(job, outcome)
  }

  /** Progress is a hint: a write that fails (a full disk) is skipped, not a failure of the run. */
  #progress(id: string, fraction: number, signal: AbortSignal): void {
    if (this.#closed || signal.aborted) return
    try {
      this.#store.setProgress(id, fraction)
    } catch {
      return
    }
    this.#emit('progress', id)
  }

  /**
   * Writes how the run ended. A write that fails (a full disk) is tried again, with growing pauses, until it
   * succeeds: the run keeps its slot meanwhile, so the job is never left active with nothing to end it. A
   * stop meanwhile leaves the record active, for the next start to queue again.
   */
  async #record(job: JobRecord, outcome: Outcome): Promise<void> {
    let delayMs = 0
    for (;;) {
      try {
        if (await writeTransaction(this.#deps.db, () => writeOutcome(this.#store, job.id, outcome))) break
        return // no longer active: nothing of this run to record
      } catch (error) {
        if (this.#closed) return
        delayMs = nextDelay(delayMs)
        this.#deps.logger.error(
          { err: error, job: job.id, state: outcome.state, retryInMs: delayMs },
          'jobs: could not record the end of a job; trying again',
        )
        const stopped = await sleep(delayMs, this.#closing.signal).then(
          () => false,
          () => true,
        )
        if (stopped) return
      }
    }
    if (outcome.state !== 'queued') await this.#afterFinal(job)
    this.#emit(outcome.state, job.id)
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
