/**
 * `dictum worker`'s engine room: takes jobs from the Redis queue and runs them on this machine's app (the
 * same TranscriptionService, engines and dictionary as `dictum serve`), `concurrency` at a time.
 *
 * Jobs run in this process through the app's engine runner, not in BullMQ's sandboxed processors: the
 * engines already run in their own host processes (docs/engine-isolation.md: a crash, hang or memory
 * blow-up costs one request, and the model stays loaded between jobs), so a BullMQ child process per job
 * would only add a process hop and reload the model. An engine crash fails the run with a 5xx, which BullMQ
 * retries up to `jobs.attempts`.
 *
 * Faults: the worker holds each job's lock (`jobs.redis.lockDurationMs`, renewed every half of it); a worker
 * killed outright lets it lapse, and any worker's stall check (`jobs.redis.stalledIntervalMs`) queues the
 * job again, behind the others of its priority; that run is not counted as an attempt. A Redis restart pauses the worker (its commands wait for the reconnection). SIGTERM stops it
 * taking jobs, lets its runs finish for `graceMs`, then returns the ones still running to the queue.
 */

import { mkdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import {
  DelayedError,
  type Job,
  Queue,
  UnrecoverableError,
  WaitingChildrenError,
  WaitingError,
  Worker,
} from 'bullmq'
import type { Redis } from 'ioredis'
import type { AudioService } from '../../audio/service.ts'
import { errors, isDictumError } from '../../errors/catalogue.ts'
import type { ConfigStore } from '../../kernel/config-store.ts'
import type { PluginLogger } from '../../kernel/contracts/engine.ts'
import type { PieceResult } from '../../transcription/join.ts'
import type { TranscribeOptions, TranscriptionService } from '../../transcription/service.ts'
import { jobsErrors } from '../errors.ts'
import { type TranscriptionExecutor, thisRunner, wavSeconds } from '../executor.ts'
import { resultsDirOf, spoolDirOf } from '../paths.ts'
import { isRetryable, type JobRecord, type JobResult } from '../types.ts'
import { WorkerStats } from '../worker-stats.ts'
import { connectRedis, redisAddress } from './connection.ts'
import { groupPieces } from './fan-out.ts'
import {
  failureReason,
  jobOptions,
  keys,
  PART,
  type PartData,
  PREFIX,
  partJobId,
  QUEUE,
  type TranscribeData,
} from './queue.ts'

export interface WorkerDeps {
  configStore: ConfigStore
  transcription: TranscriptionService
  audio: AudioService
  executor: TranscriptionExecutor
  logger: PluginLogger
}

export interface WorkerOptions {
  /** Jobs (and parts) run at once. */
  concurrency: number
  /** How long SIGTERM lets runs finish before returning them to the queue. */
  graceMs: number
}

/** A part's result: the engine's results for its pieces, and the seconds its run took. */
interface PartResult {
  index: number
  pieces: PieceResult[]
  processingSeconds: number
}

type AnyJob = Job<TranscribeData | PartData, JobResult | PartResult>

const HEARTBEAT_MS = 5000
const DECODE_CHUNK_SECONDS = 5

export class RedisJobWorker {
  readonly #stats = new WorkerStats()
  /** `<host>:<pid>`: unique among running workers, and says where to look. */
  readonly id = this.#stats.id
  readonly #deps: WorkerDeps
  readonly #options: WorkerOptions
  readonly #connections: Redis[] = []
  #worker: Worker | null = null
  #queue: Queue | null = null
  #heartbeat: NodeJS.Timeout | null = null
  /** Runs in progress: job id → its abort controller and (for a part) its parent's id. */
  readonly #running = new Map<string, { controller: AbortController; parentId: string | null }>()

  constructor(deps: WorkerDeps, options: WorkerOptions) {
    this.#deps = deps
    this.#options = options
  }

  async start(): Promise<void> {
    const config = this.#deps.configStore.current
    const connect = () => {
      const redis = connectRedis(config, { failFast: false })
      redis.on('error', (error) => this.#deps.logger.warn({ error: error.message }, 'Redis connection'))
      this.#connections.push(redis)
      return redis
    }
    this.#queue = new Queue(QUEUE, { connection: connect(), prefix: PREFIX })
    this.#queue.on('error', () => {})
    const cancels = connect()
    cancels.on('message', (_channel: string, id: string) => this.#cancelled(id))
    await cancels.subscribe(keys.cancelChannel)
    const { lockDurationMs, stalledIntervalMs } = config.jobs.redis
    this.#worker = new Worker(QUEUE, (job: AnyJob, token?: string) => this.#process(job, token ?? ''), {
      connection: connect(),
      prefix: PREFIX,
      concurrency: this.#options.concurrency,
      lockDuration: lockDurationMs,
      stalledInterval: stalledIntervalMs,
      // A job whose worker died this many times fails (as a run that failed as often would).
      maxStalledCount: config.jobs.attempts,
      autorun: false,
    })
    this.#worker.on('error', (error) => this.#deps.logger.warn({ error: error.message }, 'jobs worker'))
    void this.#worker.run()
    await this.#worker.waitUntilReady()
    await this.#beat()
    this.#heartbeat = setInterval(() => void this.#beat().catch(() => {}), HEARTBEAT_MS)
    this.#heartbeat.unref()
    this.#deps.logger.info(
      {
        worker: this.id,
        redis: redisAddress(config.jobs.redis.url ?? ''),
        concurrency: this.#options.concurrency,
      },
      'worker taking jobs',
    )
  }

  /** Stops taking jobs; runs still going after `graceMs` are returned to the queue (no attempt counted). */
  async close(): Promise<void> {
    if (this.#heartbeat) clearInterval(this.#heartbeat)
    const worker = this.#worker
    this.#worker = null
    if (worker) {
      const timer = setTimeout(() => {
        for (const run of this.#running.values()) run.controller.abort(SHUTDOWN)
      }, this.#options.graceMs)
      await worker.close()
      clearTimeout(timer)
    }
    await this.#queue?.close().catch(() => {})
    const redis = this.#connections[0]
    await redis?.del(keys.worker(this.id)).catch(() => {})
    for (const connection of this.#connections) connection.disconnect()
  }

  async #process(job: AnyJob, token: string): Promise<JobResult | PartResult> {
    if (job.stalledCounter > (job.data.stallsSeen ?? 0)) {
      // Its worker died while running it, and BullMQ put it back at the head of the queue: it goes behind
      // the other jobs of its priority first (a run not counted), so that a crash loop of workers does not
      // fall on one job. A job that is the cause stalls again at each of its runs, and BullMQ fails it after
      // `maxStalledCount` (jobs.attempts) stalls.
      await job.updateData({ ...job.data, stallsSeen: job.stalledCounter })
      await job.moveToDelayed(Date.now(), token)
      throw new DelayedError()
    }
    const parentId = job.name === PART ? (job.data as PartData).parentId : null
    const controller = new AbortController()
    this.#running.set(job.id!, { controller, parentId })
    const started = performance.now()
    try {
      if (await this.#isCancelled(parentId ?? job.id!)) throw jobsErrors.JOB_CANCELLED()
      const result =
        job.name === PART
          ? await this.#runPart(job as Job<PartData, PartResult>, controller.signal)
          : await this.#runJob(job as Job<TranscribeData, JobResult>, token, controller.signal)
      // A joined job's audio was counted by its parts.
      const audioSeconds =
        'index' in result
          ? result.pieces.reduce((sum, piece) => sum + piece.seconds, 0)
          : (job.data as TranscribeData).plan
            ? 0
            : result.durationSeconds
      this.#count(audioSeconds, started)
      if (job.name !== PART) await this.#removeSpooled(job.data.record)
      return result
    } catch (error) {
      throw await this.#failure(job, token, controller.signal, error, started)
    } finally {
      this.#running.delete(job.id!)
      // The heartbeat shows each finished run at once.
      void this.#beat().catch(() => {})
    }
  }

  async #runJob(job: Job<TranscribeData, JobResult>, token: string, signal: AbortSignal): Promise<JobResult> {
    const started = performance.now()
    const { record } = job.data
    await job.updateData({ ...job.data, runner: thisRunner(this.id) })
    const local = await this.#localInput(job.data)
    try {
      if (job.data.plan || (await this.#fansOut(job.data, local, signal))) {
        return await this.#fanOut(job, token, local, signal, started)
      }
      return await this.#deps.executor.run(local, {
        signal,
        onProgress: (fraction) => void job.updateProgress(fraction).catch(() => {}),
      })
    } finally {
      if (local !== record) await rm(uploadPath(this.#deps.configStore, local), { force: true })
    }
  }

  /**
   * The job's fan-out, in BullMQ's steps: first its parts are planned and queued as children and the job
   * waits for them (WaitingChildrenError); when they are done a worker runs it again and joins them.
   */
  async #fanOut(
    job: Job<TranscribeData, JobResult>,
    token: string,
    record: JobRecord,
    signal: AbortSignal,
    started: number,
  ): Promise<JobResult> {
    let plan = job.data.plan
    if (!plan) {
      const planned = await this.#deps.transcription.planPieces(
        { kind: 'file', path: audioPath(this.#deps.configStore, record) },
        hints(record, signal),
      )
      const { partSeconds } = this.#deps.configStore.current.jobs.redis
      const planningSeconds = secondsSince(started)
      plan = { ...planned, groups: groupPieces(planned.pieces, partSeconds), planningSeconds }
      await job.updateData({ ...job.data, plan })
    }
    const config = this.#deps.configStore.current
    const parent = { id: job.id!, queue: job.queueQualifiedName }
    // Fixed ids: after a crash between these steps, queuing them again adds nothing twice.
    await this.#queue!.addBulk(
      plan.groups.map((pieces, index) => ({
        name: PART,
        data: { parentId: job.id!, record: job.data.record, index, pieces } satisfies PartData,
        opts: {
          jobId: partJobId(job.id!, index),
          parent,
          failParentOnFailure: true,
          ...jobOptions(config, record.priority),
        },
      })),
    )
    if (await job.moveToWaitingChildren(token)) throw new WaitingChildrenError()
    const parts = Object.values(await job.getChildrenValues<PartResult>()).sort((a, b) => a.index - b.index)
    const transcript = this.#deps.transcription.joinPieces(
      parts.flatMap((part) => part.pieces),
      plan,
    )
    signal.throwIfAborted()
    // The job's work is its planning, its parts' runs (wherever they ran) and this join.
    const workSeconds =
      (plan.planningSeconds ?? 0) + parts.reduce((sum, part) => sum + (part.processingSeconds ?? 0), 0)
    return this.#deps.executor.writeResult(record, transcript, started, workSeconds)
  }

  async #runPart(job: Job<PartData, PartResult>, signal: AbortSignal): Promise<PartResult> {
    const started = performance.now()
    const { record, pieces, index } = job.data
    const results = await this.#deps.transcription.transcribePieces(
      { kind: 'file', path: audioPath(this.#deps.configStore, record) },
      pieces,
      hints(record, signal),
    )
    return { index, pieces: results, processingSeconds: secondsSince(started) }
  }

  /** Whether the job's audio is long enough to fan out (a file on shared storage; a URL's runs whole). */
  async #fansOut(data: TranscribeData, record: JobRecord, signal: AbortSignal): Promise<boolean> {
    const { fanOutSeconds } = this.#deps.configStore.current.jobs.redis
    if (fanOutSeconds === 0 || record.input.kind === 'url' || data.inline !== undefined) return false
    const file = audioPath(this.#deps.configStore, record)
    const seconds = await wavSeconds(file)
    if (seconds !== null) return seconds > fanOutSeconds
    // Another format: decoded until it is known to be longer (or ends).
    let samples = 0
    try {
      const stream = this.#deps.audio.decoder.stream(
        { kind: 'file', path: file },
        { chunkSeconds: DECODE_CHUNK_SECONDS },
        signal,
      )
      for await (const chunk of stream) {
        samples += chunk.length
        if (samples / 16000 > fanOutSeconds) return true
      }
    } catch {
      return false // the run reports the audio's problem with its own error
    }
    return false
  }

  /** The job with an upload that travelled inline written to this machine's spool (else the job as it is). */
  async #localInput(data: TranscribeData): Promise<JobRecord> {
    const { record, inline } = data
    if (inline === undefined || record.input.kind !== 'upload') return record
    const spool = spoolDirOf(this.#deps.configStore.current)
    await mkdir(spool, { recursive: true })
    const file = path.join(
      'spool',
      `${record.id}.inline-${process.pid}${path.extname(record.input.filename)}`,
    )
    await writeFile(
      path.join(resultsDirOf(this.#deps.configStore.current), file),
      Buffer.from(inline, 'base64'),
    )
    return { ...record, input: { ...record.input, file } }
  }

  /** What BullMQ should do with a run that threw: retry it, fail it for good, or take it back (shutdown). */
  async #failure(
    job: AnyJob,
    token: string,
    signal: AbortSignal,
    error: unknown,
    started: number,
  ): Promise<Error> {
    if (error instanceof WaitingChildrenError) return error
    if (signal.reason === SHUTDOWN) {
      await job.moveToWait(token)
      return new WaitingError()
    }
    this.#count(0, started)
    const cause = signal.aborted && isDictumError(signal.reason) ? signal.reason : error
    const reason = failureReason(cause)
    this.#deps.logger.warn({ job: job.id, attempt: job.attemptsMade + 1, error: reason }, 'job run failed')
    const again = isRetryable(cause) && job.attemptsMade + 1 < (job.opts.attempts ?? 1)
    if (!again && job.name !== PART) await this.#removeSpooled(job.data.record)
    return again ? new Error(reason) : new UnrecoverableError(reason)
  }

  /** An uploaded file is spooled until its job is over (the service removes a job cancelled in the queue's). */
  async #removeSpooled(record: JobRecord): Promise<void> {
    if (record.input.kind === 'upload') await rm(uploadPath(this.#deps.configStore, record), { force: true })
  }

  #count(audioSeconds: number, started: number): void {
    this.#stats.count(audioSeconds, secondsSince(started))
  }

  async #isCancelled(id: string): Promise<boolean> {
    return (await this.#connections[0]!.exists(keys.cancelled(id))) === 1
  }

  /** A job was cancelled: its run here (or its parts' runs) stop. */
  #cancelled(id: string): void {
    for (const [jobId, run] of this.#running) {
      if (jobId === id || run.parentId === id) run.controller.abort(jobsErrors.JOB_CANCELLED())
    }
  }

  async #beat(): Promise<void> {
    const heartbeat = this.#stats.status({
      engine: this.#deps.configStore.current.speech.engine,
      concurrency: this.#options.concurrency,
      active: this.#running.size,
    })
    await this.#connections[0]!.set(keys.worker(this.id), JSON.stringify(heartbeat), 'PX', HEARTBEAT_MS * 3)
  }
}

/** Seconds since `started` (a performance.now()), to the millisecond. */
function secondsSince(started: number): number {
  return Math.round(performance.now() - started) / 1000
}

/** The abort reason of a shutdown (its runs go back to the queue, they did not fail). */
const SHUTDOWN = new Error('the worker is stopping')

function hints(record: JobRecord, signal: AbortSignal): TranscribeOptions {
  return {
    signal,
    priority: 'low',
    ...(record.language ? { language: record.language } : {}),
    ...(record.prompt ? { prompt: record.prompt } : {}),
  }
}

/** Where this machine reads the job's audio (a path as given, an upload in its resultsDir). */
function audioPath(configStore: ConfigStore, record: JobRecord): string {
  if (record.input.kind === 'path') return record.input.path
  return uploadPath(configStore, record)
}

function uploadPath(configStore: ConfigStore, record: JobRecord): string {
  if (record.input.kind !== 'upload') throw errors.INTERNAL()
  return path.join(resultsDirOf(configStore.current), record.input.file)
}
