/**
 * What a process that runs jobs says about itself (`GET /v1/jobs/workers`): a `dictum worker`'s heartbeat in
 * Redis, or the service itself with the local backend. Both count their runs here.
 */
import { hostname } from 'node:os'

export interface WorkerStatus {
  /** `<host>:<pid>`: unique among running workers, and says where to look. */
  id: string
  host: string
  pid: number
  engine: string
  concurrency: number
  /** Jobs and parts it is running now. */
  active: number
  /** Jobs and parts it has finished (completed or failed). */
  done: number
  /** Seconds of audio it transcribed. */
  audioSeconds: number
  /** Audio seconds per second of its runs' wall time (per run: with concurrency N, N runs add up). */
  throughput: number
  startedAt: string
  seenAt: string
}

export class WorkerStats {
  readonly id = `${hostname()}:${process.pid}`
  readonly #startedAt = new Date().toISOString()
  #done = 0
  #audioSeconds = 0
  #runSeconds = 0

  /** A run ended (completed or failed) after `runSeconds` of wall time, having transcribed `audioSeconds`. */
  count(audioSeconds: number, runSeconds: number): void {
    this.#done++
    this.#audioSeconds += audioSeconds
    this.#runSeconds += runSeconds
  }

  status(now: { engine: string; concurrency: number; active: number }): WorkerStatus {
    return {
      id: this.id,
      host: hostname(),
      pid: process.pid,
      engine: now.engine,
      concurrency: now.concurrency,
      active: now.active,
      done: this.#done,
      audioSeconds: round(this.#audioSeconds),
      throughput: this.#runSeconds > 0 ? round(this.#audioSeconds / this.#runSeconds) : 0,
      startedAt: this.#startedAt,
      seenAt: new Date().toISOString(),
    }
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}
