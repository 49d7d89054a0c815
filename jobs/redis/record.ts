/**
 * A dictum job record read from BullMQ: what was submitted is in the job's data, what happened since
 * (state, attempts, progress, result, failure, times) is BullMQ's own, and a cancellation is dictum's key
 * beside it (BullMQ has no cancelled state).
 */
import type { Job } from 'bullmq'
import type { JobRecord, JobResult, JobState } from '../types.ts'
import { jobErrorOf, STALLED_OUT, type TranscribeData } from './queue.ts'

const STATES: Record<string, JobState> = {
  waiting: 'queued',
  prioritized: 'queued',
  // A failed run waiting for its retry delay.
  delayed: 'queued',
  active: 'active',
  // A fanned-out job while its parts run.
  'waiting-children': 'active',
  completed: 'completed',
  failed: 'failed',
}

/**
 * The record of `job` in `bullState` (read before the job: states only move forward, so a completed job read
 * after its state has its result), null when BullMQ no longer knows it. `cancelled` is the record stored when the job
 * was cancelled: it is the answer once the run has stopped (or never started), unless the run completed
 * first.
 */
export async function recordOf(
  bullState: string,
  job: Job<TranscribeData, JobResult> | undefined,
  cancelled: JobRecord | null,
): Promise<JobRecord | null> {
  if (!job) return cancelled
  const state = STATES[bullState]
  if (!state) return cancelled
  if (cancelled && state !== 'completed' && state !== 'active') return cancelled
  const submitted = job.data.record
  const record: JobRecord = {
    ...submitted,
    state,
    progress: state === 'completed' ? 1 : await progressOf(job, bullState),
    attempts: countedAttempts(job, state, submitted.maxAttempts),
    error: state === 'completed' ? null : job.failedReason ? jobErrorOf(job.failedReason) : null,
    result: state === 'completed' ? job.returnvalue : null,
    runner: job.data.runner ?? null,
    startedAt: job.processedOn ? new Date(job.processedOn).toISOString() : null,
    finishedAt:
      (state === 'completed' || state === 'failed') && job.finishedOn
        ? new Date(job.finishedOn).toISOString()
        : null,
  }
  if (state === 'completed' && record.runner)
    record.runner = { ...record.runner, engine: job.returnvalue.engine }
  return record
}

/**
 * Runs counted against the job, never more than its maximum: those that ended (BullMQ's attemptsMade) and the
 * one running. A run its worker's death cut off (a stall) is not counted (BullMQ's attemptsStarted counts
 * it), unless the job failed for such deaths: then they all count, as its maximum.
 */
function countedAttempts(job: Job<TranscribeData, JobResult>, state: JobState, maxAttempts: number): number {
  if (state === 'failed' && job.failedReason === STALLED_OUT) return maxAttempts
  return Math.min(maxAttempts, job.attemptsMade + (state === 'active' ? 1 : 0))
}

/** A fanned-out job's progress is the share of its parts done; any other job's is what its run reported. */
async function progressOf(job: Job<TranscribeData, JobResult>, bullState: string): Promise<number> {
  if (bullState === 'waiting-children' && job.data.plan) {
    const { processed = 0 } = await job.getDependenciesCount({ processed: true })
    return Math.min(1, processed / job.data.plan.groups.length)
  }
  return typeof job.progress === 'number' ? job.progress : 0
}
