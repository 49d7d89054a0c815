/**
 * The `redis` queue backend (`jobs.backend: "redis"`): the service records jobs in BullMQ on
 * `jobs.redis.url` and reads their state back; `dictum worker`s on any machine run them (worker.ts). The
 * service itself never transcribes a job.
 *
 * A Redis that does not answer makes each call fail at once with 503 JOBS_UNAVAILABLE (nothing waits for it);
 * the connection comes back by itself when Redis does.
 */

import { readFile, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { Queue, QueueEvents } from 'bullmq'
import type { Redis } from 'ioredis'
import { errors, isDictumError } from '../../errors/catalogue.ts'
import type { ConfigStore } from '../../kernel/config-store.ts'
import type { PluginLogger } from '../../kernel/contracts/engine.ts'
import { redact, redactError } from '../../lib/secrets.ts'
import { jobsErrors } from '../errors.ts'
import { type JobListener, JobListeners } from '../listeners.ts'
import { newJobId } from '../local/store.ts'
import { resultsDirOf } from '../paths.ts'
import {
  isFinal,
  type JobBackend,
  type JobEvent,
  type JobListQuery,
  type JobPage,
  type JobRecord,
  type JobResult,
  type JobSpec,
} from '../types.ts'
import type { WorkerStatus } from '../worker-stats.ts'
import { connectRedis, redisAddress } from './connection.ts'
import {
  INLINE_UPLOAD_BYTES,
  jobErrorOf,
  jobOptions,
  keys,
  PREFIX,
  QUEUE,
  TRANSCRIBE,
  type TranscribeData,
} from './queue.ts'
import { recordOf } from './record.ts'

interface Deps {
  configStore: ConfigStore
  logger: PluginLogger
}

interface Open {
  redis: Redis
  queue: Queue<TranscribeData, JobResult>
}

/** Ids read from the index per round trip while listing. */
const LIST_BATCH = 100
/** How often a cancel looks whether the run it stopped has ended. */
const CANCEL_POLL_MS = 100

/** Worker heartbeats as `dictum worker` writes them (see worker.ts). */
export class RedisJobBackend implements JobBackend {
  readonly kind = 'redis' as const
  readonly #deps: Deps
  #open: Promise<Open> | null = null
  #events: QueueEvents | null = null
  #eventsRedis: Redis | null = null
  readonly #listeners = new JobListeners()
  /** Per job: events are read and sent one after the other, so they arrive in order. */
  readonly #sending = new Map<string, Promise<void>>()
  /** Jobs whose final event was sent (a cancel and BullMQ's failure would send two). */
  readonly #finalSent = new Set<string>()
  #closed = false

  constructor(deps: Deps) {
    this.#deps = deps
  }

  async start(): Promise<void> {
    try {
      await this.#queue()
      this.#deps.logger.info(
        { redis: redisAddress(this.#deps.configStore.current.jobs.redis.url ?? '') },
        'jobs queue on Redis',
      )
    } catch (error) {
      // The service still starts: job requests answer 503 until Redis is there.
      this.#deps.logger.warn(
        {
          redis: redisAddress(this.#deps.configStore.current.jobs.redis.url ?? ''),
          error: redact(String(error)),
        },
        'jobs queue: Redis does not answer yet',
      )
    }
  }

  submit(spec: JobSpec): Promise<{ job: JobRecord; created: boolean }> {
    return this.#guard(async ({ redis, queue }) => {
      const config = this.#deps.configStore.current
      const id = newJobId()
      if (spec.idempotencyKey !== null) {
        const key = keys.idempotency(spec.idempotencyKey)
        const taken = await redis.set(key, id, 'NX')
        if (taken === null) {
          const existing = await redis.get(key)
          const job = existing ? await this.#read({ redis, queue }, existing) : null
          if (job) return { job, created: false }
          // The key outlived its job (a submission cut off between the two writes): this one takes it.
          await redis.set(key, id)
        }
      }
      const now = new Date()
      const record: JobRecord = {
        ...spec,
        id,
        state: 'queued',
        progress: 0,
        attempts: 0,
        maxAttempts: config.jobs.attempts,
        error: null,
        result: null,
        runner: null,
        createdAt: now.toISOString(),
        startedAt: null,
        finishedAt: null,
      }
      const data: TranscribeData = { record, ...(await inlineUpload(spec, resultsDirOf(config))) }
      await queue.add(TRANSCRIBE, data, {
        jobId: id,
        timestamp: now.getTime(),
        ...jobOptions(config, spec.priority),
      })
      await redis.zadd(keys.index, now.getTime(), id)
      return { job: record, created: true }
    })
  }

  get(id: string): Promise<JobRecord | null> {
    return this.#guard((open) => this.#read(open, id))
  }

  list(query: JobListQuery): Promise<JobPage> {
    return this.#guard(async (open) => {
      const { redis } = open
      const states = query.states?.length ? new Set(query.states) : null
      let rank = 0
      if (query.cursor) {
        const at = await redis.zrevrank(keys.index, query.cursor)
        if (at === null) throw errors.INVALID_REQUEST('cursor is not one this list gave.')
        rank = at + 1
      }
      const jobs: JobRecord[] = []
      for (;;) {
        const ids = await redis.zrevrange(keys.index, rank, rank + LIST_BATCH - 1)
        for (const [i, id] of ids.entries()) {
          const job = await this.#read(open, id)
          if (!job || (states && !states.has(job.state))) continue
          jobs.push(job)
          if (jobs.length === query.limit) {
            const more = (await redis.zcard(keys.index)) > rank + i + 1
            return { jobs, nextCursor: more ? id : null }
          }
        }
        if (ids.length < LIST_BATCH) return { jobs, nextCursor: null }
        rank += ids.length
      }
    })
  }

  cancel(id: string): Promise<JobRecord | null> {
    return this.#guard(async (open) => {
      const { redis, queue } = open
      const job = await this.#read(open, id)
      if (!job || isFinal(job.state)) return job
      const now = new Date().toISOString()
      const cancelled: JobRecord = { ...job, state: 'cancelled', finishedAt: now }
      await redis.set(keys.cancelled(id), JSON.stringify(cancelled))
      // A queued job leaves the queue; one that a worker took meanwhile is locked and stays, to be stopped.
      const removed = job.state === 'queued' && (await queue.remove(id)) === 1
      if (removed && job.input.kind === 'upload') {
        await rm(path.join(resultsDirOf(this.#deps.configStore.current), job.input.file), { force: true })
      }
      if (!removed) {
        await redis.publish(keys.cancelChannel, id)
        await this.#untilStopped(queue, id)
      }
      this.#send(id, 'cancelled')
      return this.#read(open, id)
    })
  }

  subscribe(id: string, listener: JobListener): () => void {
    const remove = this.#listeners.add(id, listener)
    this.#listen()
    return remove
  }

  /** The workers whose heartbeat is fresh (each writes its own, expiring, see worker.ts). */
  workers(): Promise<WorkerStatus[]> {
    return this.#guard(async ({ redis }) => {
      const found: string[] = []
      let cursor = '0'
      do {
        const [next, batch] = await redis.scan(cursor, 'MATCH', keys.workerPattern, 'COUNT', 100)
        found.push(...batch)
        cursor = next
      } while (cursor !== '0')
      if (found.length === 0) return []
      const values = await redis.mget(found)
      return values.flatMap((v) => (v ? [JSON.parse(v) as WorkerStatus] : []))
    })
  }

  async close(): Promise<void> {
    this.#closed = true
    this.#listeners.clear()
    await this.#events?.close().catch(() => {})
    this.#eventsRedis?.disconnect()
    const open = await this.#open?.catch(() => null)
    if (open) {
      await open.queue.close().catch(() => {})
      open.redis.disconnect()
    }
  }

  #queue(): Promise<Open> {
    if (this.#closed) return Promise.reject(jobsErrors.JOBS_UNAVAILABLE('the service is stopping.'))
    this.#open ??= (async () => {
      const redis = connectRedis(this.#deps.configStore.current, { failFast: true })
      redis.on('error', () => {}) // each call reports its own failure; ioredis reconnects
      try {
        await redis.connect()
      } catch (error) {
        redis.disconnect()
        throw error
      }
      const queue = new Queue<TranscribeData, JobResult>(QUEUE, { connection: redis, prefix: PREFIX })
      queue.on('error', () => {})
      return { redis, queue }
    })()
    // A failed first connection is tried again by the next call.
    this.#open.catch(() => {
      this.#open = null
    })
    return this.#open
  }

  /**
   * Runs `work` on the open queue. What Redis or its connection fails with (not connected, a command Redis
   * refused) is 503 JOBS_UNAVAILABLE; catalogue errors, and faults of dictum's own code, pass as they are.
   */
  async #guard<T>(work: (open: Open) => Promise<T>): Promise<T> {
    try {
      return await work(await this.#queue())
    } catch (error) {
      if (isDictumError(error) || isCodeFault(error)) throw error
      // In dictum's words: ioredis's ("Stream isn't writeable and enableOfflineQueue options is false") speak
      // of its options, not of what the user can do. The cause keeps them for the log.
      const url = this.#deps.configStore.current.jobs.redis.url ?? ''
      throw jobsErrors.JOBS_UNAVAILABLE(
        `Redis at ${redisAddress(url)} does not answer; jobs can be submitted and read again once it is back.`,
        { cause: redactError(error) },
      )
    }
  }

  async #read({ redis, queue }: Open, id: string): Promise<JobRecord | null> {
    const [state, cancelled] = await Promise.all([queue.getJobState(id), redis.get(keys.cancelled(id))])
    const job = await queue.getJob(id)
    const record = await recordOf(state, job, cancelled ? (JSON.parse(cancelled) as JobRecord) : null)
    // A fanned-out job that failed because a part did: BullMQ says "child <key> failed"; the part says why.
    const part = /^child \S+:(\S+) failed$/u.exec(job?.failedReason ?? '')?.[1]
    if (record?.state === 'failed' && part) {
      const reason = (await queue.getJob(part))?.failedReason
      if (reason) record.error = jobErrorOf(reason)
    }
    return record
  }

  /**
   * Waits until the worker running `id` has stopped it: until it is completed, failed or gone. A job that
   * has started passes through waiting again between its phases (a fanned-out job once its parts end,
   * before a worker takes it for the join), so only an end counts. A worker that died holds it until its
   * lock lapses and another worker takes it (and stops at once, seeing it cancelled): bounded by the lock
   * and the stall check.
   */
  async #untilStopped(queue: Queue, id: string): Promise<void> {
    const { lockDurationMs, stalledIntervalMs } = this.#deps.configStore.current.jobs.redis
    const deadline = Date.now() + lockDurationMs + stalledIntervalMs + 5000
    while (Date.now() < deadline) {
      const state = await queue.getJobState(id)
      if (state === 'completed' || state === 'failed' || state === 'unknown') return
      await new Promise((resolve) => setTimeout(resolve, CANCEL_POLL_MS))
    }
  }

  /** Starts reading BullMQ's event stream (once, when someone subscribes). */
  #listen(): void {
    if (this.#events || this.#closed) return
    // Blocking reads need a connection of their own that waits through reconnections.
    this.#eventsRedis = connectRedis(this.#deps.configStore.current, { failFast: false })
    this.#eventsRedis.on('error', () => {})
    const events = new QueueEvents(QUEUE, { connection: this.#eventsRedis, prefix: PREFIX })
    events.on('error', () => {})
    const on = (type: JobEvent['type'] | null) => (event: { jobId: string }) => {
      // A part's events move its parent's progress.
      const parent = event.jobId.split('-part-')[0]!
      this.#send(parent, parent === event.jobId ? type : 'progress')
    }
    events.on('waiting', on('queued'))
    events.on('delayed', on('queued'))
    events.on('active', on('active'))
    events.on('progress', on('progress'))
    events.on('completed', on(null))
    events.on('failed', on(null))
    events.on('removed', on(null))
    this.#events = events
  }

  /**
   * Reads the job and sends `type` (or, for null, what its state says) to its listeners, after the events
   * before it. A job's final event is sent once.
   */
  #send(id: string, type: JobEvent['type'] | null): void {
    if (!this.#listeners.has(id)) return
    const previous = this.#sending.get(id) ?? Promise.resolve()
    const next = previous.then(async () => {
      const job = await this.get(id).catch(() => null)
      if (!job || !this.#listeners.has(id) || this.#finalSent.has(id)) return
      const sent: JobEvent['type'] = isFinal(job.state)
        ? (job.state as JobEvent['type'])
        : type === null || isFinalType(type)
          ? (job.state as JobEvent['type'])
          : type
      if (isFinal(job.state)) this.#finalSent.add(id)
      this.#listeners.send(id, { type: sent, job })
    })
    this.#sending.set(id, next)
    void next.finally(() => {
      if (this.#sending.get(id) === next) this.#sending.delete(id)
    })
  }
}

/** An error of the code itself (a bug), not of Redis. */
function isCodeFault(error: unknown): boolean {
  return error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError
}

function isFinalType(type: JobEvent['type']): boolean {
  return type === 'completed' || type === 'failed' || type === 'cancelled'
}

/** An upload small enough to travel in the job (see INLINE_UPLOAD_BYTES); larger ones stay on the path. */
async function inlineUpload(spec: JobSpec, resultsDir: string): Promise<{ inline?: string }> {
  if (spec.input.kind !== 'upload') return {}
  const file = path.join(resultsDir, spec.input.file)
  const { size } = await stat(file)
  if (size > INLINE_UPLOAD_BYTES) return {}
  return { inline: (await readFile(file)).toString('base64') }
}
