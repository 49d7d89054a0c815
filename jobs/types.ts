/**
 * Transcription jobs: the seam between the jobs API (routes/jobs/routes.ts, the CLI), the queue backends that keep
 * and hand out jobs (`jobs.backend`: "local", in-process and durable in SQLite, jobs/local/; "redis", BullMQ,
 * jobs/redis/) and the executor that runs one job (jobs/executor.ts: the app's TranscriptionService on the
 * local engines, writing the result files).
 *
 * A backend never transcribes by itself: whoever takes a job from it (the local backend's own runner, or
 * `dictum worker` on any machine) calls a {@link JobExecutor}. Routes and the CLI only see {@link JobBackend}.
 *
 * Lifecycle: queued → active → completed | failed | cancelled. An active job whose run fails with a
 * retryable error (see {@link isRetryable}), or whose process died (restart, kill -9), goes back to queued
 * while `attempts < maxAttempts`; else it is failed with its reason. A cancelled queued job never runs; a
 * cancelled active job is aborted through its run's AbortSignal. completed, failed and cancelled are final.
 */
import type { ConfigStore } from '../kernel/config-store.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import type { Db } from '../storage/database.ts'
import type { DocumentFormat } from '../transcription/formats.ts'
import type { WorkerStatus } from './worker-stats.ts'

export const JOB_STATES = ['queued', 'active', 'completed', 'failed', 'cancelled'] as const
export type JobState = (typeof JOB_STATES)[number]
/** States a job never leaves. */
export const FINAL_STATES: readonly JobState[] = ['completed', 'failed', 'cancelled']

export function isFinal(state: JobState): boolean {
  return FINAL_STATES.includes(state)
}

/** Priority of a job: an integer in this range; higher runs sooner; equal priorities run in submission order. */
export const MIN_PRIORITY = -100
export const MAX_PRIORITY = 100
export const DEFAULT_PRIORITY = 0

/**
 * Where a job's audio is. Audio bytes are never kept in the job record: an upload is spooled to a file
 * first (`<jobs.resultsDir>/spool/…`), so whoever runs the job reads it by path (a worker on another
 * machine needs that folder on shared storage, or a URL input). Paths inside `jobs.resultsDir` are kept
 * relative to it, so each machine resolves them against its own `jobs.resultsDir` (a shared folder may be
 * mounted at different places) and the API never shows the data dir.
 */
export type JobInput =
  /** An absolute path the runner of the job can read. */
  | { kind: 'path'; path: string }
  /** An http(s) URL, fetched by the runner when the job starts (lib/http-client.ts, within the audio limits). */
  | { kind: 'url'; url: string }
  /** A file uploaded with the request, spooled at `file` (relative to `jobs.resultsDir`); `filename` is the name the client gave. */
  | { kind: 'upload'; file: string; filename: string }

/** What a submission asks for: one job (a batch is one submission per file, sharing `batchId`). */
export interface JobSpec {
  input: JobInput
  /** Documents written when the job completes (transcription/formats.ts), at least one, no repeats. */
  formats: DocumentFormat[]
  priority: number
  /** Same key → same job: a second submission returns the first job (created: false) instead of a new one. */
  idempotencyKey: string | null
  /** The jobs of one folder or glob submission share it (null for a single job). */
  batchId: string | null
  /** Transcription hints passed to the engine (as /v1/transcribe's `language` and `prompt`). */
  language: string | null
  prompt: string | null
}

/** Where and by what a job ran (its last attempt). */
export interface JobRunner {
  /** Host name of the machine. */
  host: string
  /** Process id of the process that ran it (the service, or a `dictum worker`). */
  pid: number
  /** "local" (the service's own runner) or the worker's id. */
  worker: string
  /** Id of the engine that transcribed (set when the run ends). */
  engine: string | null
}

export interface JobError {
  /** A catalogue code (errors/catalogue.ts): `AUDIO_FILE_NOT_FOUND`, `ENGINE_CRASHED`, `JOB_INTERRUPTED`… */
  code: string
  message: string
}

/** A completed job's transcript: the text here, every format as a file. */
export interface JobResult {
  text: string
  /** Audio length in seconds. */
  durationSeconds: number
  engine: string
  provider: string
  language: string | null
  /** Each requested document's file, relative to `jobs.resultsDir`: `<job id>/<audio name>.<ext>`. */
  files: Partial<Record<DocumentFormat, string>>
  /**
   * Seconds of work: the wall time of the successful run; for a fanned-out job (Redis), the sum of its
   * planning, its parts' runs and its join, so it counts the work wherever it ran.
   */
  processingSeconds: number
}

/** A job as the API shows it (GET /v1/jobs/:id). Times are ISO 8601 UTC with milliseconds. */
export interface JobRecord extends JobSpec {
  /** `job_` and 20 base32 characters; unique across backends and machines. */
  id: string
  state: JobState
  /** 0..1: audio transcribed over audio length (1 when completed). */
  progress: number
  /** Runs started so far (a run interrupted by a restart or a dead worker counts). */
  attempts: number
  /** `jobs.attempts` when it was submitted. */
  maxAttempts: number
  /** Why it failed (state failed), or the last retryable failure of a job queued again. */
  error: JobError | null
  result: JobResult | null
  runner: JobRunner | null
  createdAt: string
  startedAt: string | null
  finishedAt: string | null
}

/** What a backend reports about a job, in order, to subscribers of that job. */
export interface JobEvent {
  /** `progress` carries `job.progress`; the three final ones end the job's event stream. */
  type: 'queued' | 'active' | 'progress' | 'completed' | 'failed' | 'cancelled'
  job: JobRecord
}

export interface JobListQuery {
  /** Only jobs in these states (all states when absent or empty). */
  states?: readonly JobState[]
  /** Page size, 1..1000. */
  limit: number
  /** From a previous page's `nextCursor`: the jobs after it. Opaque to callers. */
  cursor?: string | null
}

export interface JobPage {
  /** Newest first (by submission). */
  jobs: JobRecord[]
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null
}

/**
 * A queue of jobs. Every method rejects with catalogue errors (DictumError) only. Implementations: the local
 * backend (jobs/local/backend.ts) and the Redis one (jobs/redis/).
 */
export interface JobBackend {
  readonly kind: 'local' | 'redis'
  /**
   * Begins work, once the app is ready (the service calls it; the CLI's in-process apps never do, so a
   * `dictum` command run beside the service does not take its jobs): the local backend queues again the jobs
   * a stopped process left active (the attempt counts) and starts running queued jobs.
   */
  start(): Promise<void>
  /**
   * Records the job as queued (durably: it survives a restart) and returns it; with an idempotency key
   * already used, returns that key's job unchanged and `created: false`.
   */
  submit(spec: JobSpec): Promise<{ job: JobRecord; created: boolean }>
  /** The job, or null when there is no such job. */
  get(id: string): Promise<JobRecord | null>
  list(query: JobListQuery): Promise<JobPage>
  /**
   * Cancels the job: queued → cancelled at once; active → its run is aborted and it becomes cancelled (the
   * promise resolves once the record says so). A final job is returned unchanged. Null when there is no such job.
   */
  cancel(id: string): Promise<JobRecord | null>
  /**
   * Calls `listener` with every event of the job from now on, until the returned function is called. The
   * caller reads the job first (`get`) and subscribes before that read, so no event is missed between them.
   */
  subscribe(id: string, listener: (event: JobEvent) => void): () => void
  /**
   * The processes running jobs now: with Redis, the workers whose heartbeat is fresh; with the local backend,
   * this process (the service runs its jobs itself).
   */
  workers(): Promise<WorkerStatus[]>
  /** Stops taking jobs, aborts the runs in progress (they are queued again on the next start) and lets go of what it holds. */
  close(): Promise<void>
}

/** What a run reports while it works. */
export interface JobRunContext {
  /** Aborts the run (cancel, shutdown): the executor stops the transcription and rejects with the reason. */
  signal: AbortSignal
  /** 0..1, called as pieces of the audio are transcribed (not necessarily every piece). */
  onProgress: (fraction: number) => void
}

/**
 * Runs one job: reads its input, transcribes it with the app's TranscriptionService (engine requests marked
 * low priority, so dictation on the same machine goes first), writes each requested format under
 * `<resultsDir>/<job id>/` (each file written whole, then renamed into place), and resolves with the
 * result. It leaves the input alone: the backend removes a spooled upload when its job is final. Rejects with a catalogue error; {@link isRetryable} tells whether another attempt may succeed.
 */
export interface JobExecutor {
  run(job: JobRecord, context: JobRunContext): Promise<JobResult>
}

/**
 * Whether a failed run may succeed if tried again: engine crashes, time-outs, busy databases, a fetch that
 * failed on the network (statuses 5xx) yes; bad input (4xx: file missing, audio undecodable, too long) no,
 * so such a job fails at its first attempt.
 */
export function isRetryable(error: { statusCode?: number } | unknown): boolean {
  const status = (error as { statusCode?: unknown } | null)?.statusCode
  return typeof status !== 'number' || status >= 500
}

/** What every queue backend is built from (jobs/backend.ts picks which one, by `jobs.backend`). */
export interface BackendDeps {
  /** The config in force (`jobs.concurrency` applies live). */
  configStore: ConfigStore
  /** The app's database (the local backend keeps its jobs there). */
  db: Db
  executor: JobExecutor
  logger: PluginLogger
}
