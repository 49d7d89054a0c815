/**
 * What the Redis backend (the service's side, backend.ts) and `dictum worker` (worker.ts) agree on: the
 * BullMQ queue and its options, the keys dictum keeps beside it, what a queued job carries, and how dictum's
 * priorities and errors are written in BullMQ's terms.
 *
 * One BullMQ queue, `dictum:jobs`, holds two kinds of job: `transcribe` (a submitted job, its BullMQ id is
 * the job's id) and `part` (some VAD pieces of a long file, fanned out by the worker that took its parent;
 * see fan-out.ts). A worker's concurrency is shared by both.
 */

import type { DictumConfig } from '../../config/schema.ts'
import { type ErrorCode, errors, isDictumError, isErrorCode } from '../../errors/catalogue.ts'
import { redact } from '../../lib/secrets.ts'
import type { PieceSpan } from '../../transcription/service.ts'
import { jobsErrors } from '../errors.ts'
import { type JobError, type JobRecord, MAX_PRIORITY } from '../types.ts'

export const PREFIX = 'dictum'
export const QUEUE = 'jobs'
/** BullMQ job names. */
export const TRANSCRIBE = 'transcribe'
export const PART = 'part'

/** dictum's own keys beside BullMQ's (`dictum:jobs:*`); `jobs-meta` is no queue's name. */
const META = `${PREFIX}:jobs-meta`
export const keys = {
  /** Sorted set: every submitted job's id, scored by its submission time (GET /v1/jobs lists it). */
  index: `${META}:index`,
  /** String: the job id an idempotency key gave. */
  idempotency: (key: string) => `${META}:key:${key}`,
  /** String: the job's cancelled record (JSON) once it is cancelled; its run, if any, is being stopped. */
  cancelled: (id: string) => `${META}:cancelled:${id}`,
  /** Pub/sub channel: ids of jobs cancelled while they may be running (each worker aborts its own). */
  cancelChannel: `${META}:cancel`,
  /** String (JSON, expiring): a worker's heartbeat. */
  worker: (id: string) => `${META}:worker:${id}`,
  workerPattern: `${META}:worker:*`,
}

/**
 * Uploads up to this size travel inside the job (base64 in Redis), so a worker without the service's
 * spool folder can still run them; larger uploads are read from `jobs.resultsDir/spool` by path, which
 * workers on other machines must share. Audio bytes are never kept in Redis beyond this.
 */
export const INLINE_UPLOAD_BYTES = 256 * 1024

/** What a `transcribe` job carries. */
export interface TranscribeData {
  /** The record as submitted (state queued); what changes later is read from BullMQ. */
  record: JobRecord
  /** An upload of at most {@link INLINE_UPLOAD_BYTES}, base64. */
  inline?: string
  /** Set by the worker that runs it. */
  runner?: JobRecord['runner']
  /** Set when the worker fanned it out: how the file was cut into parts. */
  plan?: FanOutPlan
  /** The stalls (its worker died while running it) already answered by sending it behind (worker.ts). */
  stallsSeen?: number
}

export interface FanOutPlan {
  sampleCount: number
  engine: string
  provider: string
  /** The VAD pieces of each part, in order. */
  groups: PieceSpan[][]
  /** Seconds the planning took (the VAD over the whole file); absent in plans queued by older workers. */
  planningSeconds?: number
}

/** What a `part` job carries: its parent's record (input, hints) and its VAD pieces. */
export interface PartData {
  parentId: string
  record: JobRecord
  index: number
  pieces: PieceSpan[]
  /** As TranscribeData's. */
  stallsSeen?: number
}

/** The BullMQ id of a parent's part: fixed, so adding the parts again after a crash adds none twice. */
export function partJobId(parentId: string, index: number): string {
  return `${parentId}-part-${index}`
}

/**
 * dictum's priority (-100..100, higher first) as BullMQ's (1..2^21, lower first). Every job gets one, so
 * all wait in BullMQ's prioritized set, where equal priorities keep submission order.
 */
export function bullPriority(priority: number): number {
  return MAX_PRIORITY + 1 - priority
}

/** Options every added job gets from the config. */
export function jobOptions(config: Readonly<DictumConfig>, priority: number) {
  return {
    priority: bullPriority(priority),
    attempts: config.jobs.attempts,
    backoff: { type: 'exponential', delay: config.jobs.redis.retryDelayMs },
    // Records stay (GET /v1/jobs/:id); parents read their parts' results.
    removeOnComplete: false,
    removeOnFail: false,
  } as const
}

/** BullMQ keeps one string per failure: `CODE: message`, readable as it is in any BullMQ dashboard. */
export function failureReason(error: unknown): string {
  // Kept in Redis and shown by the API: through the one redaction, whatever it quotes.
  if (isDictumError(error)) return `${error.code}: ${redact(error.message)}`
  return `INTERNAL: ${errors.INTERNAL().message}`
}

/** BullMQ's failure reason of a job whose worker died while running it more than `maxStalledCount` times. */
export const STALLED_OUT = 'job stalled more than allowable limit'

/** The job error a BullMQ failure reason stands for (BullMQ's own reasons, e.g. a stall, are interruptions). */
export function jobErrorOf(reason: string | undefined): JobError {
  const match = /^([A-Z_]+): (.*)$/su.exec(reason ?? '')
  if (match && isErrorCode(match[1]!)) return { code: match[1] as ErrorCode, message: match[2]! }
  if (reason === STALLED_OUT) {
    const message =
      'the worker running it died at each of its runs (jobs.attempts): the job is the likely cause.'
    return { code: 'JOB_INTERRUPTED', message: jobsErrors.JOB_INTERRUPTED(message).message }
  }
  return {
    code: 'JOB_INTERRUPTED',
    message: jobsErrors.JOB_INTERRUPTED(reason || 'the worker running it stopped.').message,
  }
}
