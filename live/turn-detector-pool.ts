/**
 * The service's Silero turn detectors, for its live sessions. They live and run in a thread of their own
 * (turn-thread.ts): loading a detector's model took 70–300 ms of the event loop, every route waiting.
 * A session's detector answers each batch of windows with the turn each window started or ended.
 *
 * Each detector holds a native ONNX session and its sample buffer outside V8's heap (~18 MB measured), freed
 * only when V8 collects its wrapper, which native memory alone never prompts: 60 sessions opened and closed
 * one after another took the process from 200 to 530 MB that it kept. A closed session's detector is reset
 * and given to the next session with the same settings instead, so about as many exist as sessions are
 * open at once.
 */
import type { Worker } from 'node:worker_threads'
import { errors } from '../errors/catalogue.ts'
import { startModuleWorker } from '../lib/module-worker.ts'
import { leadInOf, type TurnDetectorOptions, type TurnEvent, thresholdProblem } from './turn-detector.ts'
import type { TurnReply, TurnRequest } from './turn-thread.ts'

/** Idle detectors kept per app at most (realtime.maxSessions' default): more are dropped. */
export const MAX_IDLE_TURN_DETECTORS = 8

/** One session's detector (see TurnDetectorPool). */
export interface SessionTurnDetector {
  /** Samples the detector looks back when speech starts: what the session must keep before it. */
  readonly leadIn: number
  /**
   * Feeds windows of WINDOW samples (the last may be shorter: a commit's rest); resolves with the turn each
   * one started or ended. Batches are seen in the order they are sent, and after every earlier `cut`.
   */
  accept(samples: Float32Array): Promise<Array<TurnEvent | null>>
  /** Ends the open speech here: the detector starts afresh (turn-detector.ts `cut`). */
  cut(): void
}

interface Waiting {
  resolve: (turns: Array<TurnEvent | null>) => void
  reject: (error: Error) => void
}

export class TurnDetectorPool {
  #worker: Worker | null = null
  readonly #waiting = new Map<number, Waiting>()
  #nextId = 1
  #nextSeq = 1
  /** Idle detectors' ids by their native settings (threshold and durations are fixed at creation). */
  #idle = new Map<string, number[]>()
  #idleCount = 0
  /** Detectors created so far (for tests and diagnostics). */
  created = 0

  /** A detector with these settings, fed from `options.origin` on: an idle one reset, else a new one. */
  acquire(options: TurnDetectorOptions): SessionTurnDetector {
    const problem = thresholdProblem(options.threshold)
    if (problem) throw new RangeError(`turn detection threshold ${problem}`)
    const key = keyOf(options)
    let id = this.#idle.get(key)?.pop()
    if (id !== undefined) {
      this.#idleCount--
      this.#post({ op: 'restart', id, origin: options.origin })
    } else {
      id = this.#nextId++
      this.created++
      this.#post({ op: 'create', id, options })
    }
    return this.#detector(id, leadInOf(options))
  }

  /** A session is done with its detector. */
  release(detector: SessionTurnDetector, options: TurnDetectorOptions): void {
    const id = (detector as SessionTurnDetector & { id: number }).id
    if (this.#idleCount >= MAX_IDLE_TURN_DETECTORS || !this.#worker) {
      this.#post({ op: 'free', id })
      return
    }
    const key = keyOf(options)
    const list = this.#idle.get(key) ?? []
    if (!this.#idle.has(key)) this.#idle.set(key, list)
    list.push(id)
    this.#idleCount++
  }

  /**
   * Starts the thread and creates a detector with these settings, waiting until its model is loaded, then
   * keeps it idle: the first session with the same settings takes it (the warm-up after listening).
   */
  async warmUp(options: TurnDetectorOptions): Promise<void> {
    const detector = this.acquire(options)
    try {
      await detector.accept(new Float32Array(0))
    } finally {
      // (a pool cleared meanwhile has no thread to give it back to: releasing would start one)
      if (this.#worker) this.release(detector, options)
    }
  }

  get idle(): number {
    return this.#idleCount
  }

  /**
   * Drops every detector and ends the thread (the app is closing); resolves once it has exited. The thread
   * ends by itself once idle: `terminate()`, or the process exiting while the thread still runs, can cut a
   * native call short, and that aborts the whole process (seen as `terminate called after throwing an
   * instance of 'Napi::Error'`).
   */
  async clear(): Promise<void> {
    const worker = this.#worker
    this.#worker = null
    this.#forget(errors.INTERNAL('turn detection stopped: the live service closed'))
    if (!worker) return
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
    worker.ref()
    worker.postMessage({ op: 'stop' } satisfies TurnRequest)
    await exited
  }

  #detector(id: number, leadIn: number): SessionTurnDetector & { id: number } {
    return {
      id,
      leadIn,
      accept: (samples) =>
        new Promise((resolve, reject) => {
          const seq = this.#nextSeq++
          if (this.#waiting.size === 0) this.#worker?.ref()
          this.#waiting.set(seq, { resolve, reject })
          // a copy the thread then owns: the session's buffers are views it keeps using
          const copy = samples.slice()
          this.#post({ op: 'accept', id, seq, samples: copy }, [copy.buffer as ArrayBuffer])
        }),
      cut: () => this.#post({ op: 'cut', id }),
    }
  }

  #post(request: TurnRequest, transfer: ArrayBuffer[] = []): void {
    this.#thread().postMessage(request, transfer)
  }

  /** The thread, started on first use; it keeps the process alive only while answers are awaited. */
  #thread(): Worker {
    if (this.#worker) return this.#worker
    const worker = startModuleWorker(import.meta.url, 'turn-thread')
    worker.on('message', (reply: TurnReply) => {
      const waiting = this.#waiting.get(reply.seq)
      this.#waiting.delete(reply.seq)
      // (a thread being stopped stays referenced until it has exited: clear() waits for that)
      if (this.#waiting.size === 0 && this.#worker === worker) worker.unref()
      if ('error' in reply) waiting?.reject(errors.INTERNAL(`turn detection failed: ${reply.error}`))
      else waiting?.resolve(reply.turns)
    })
    // A thread that fails takes its detectors with it: their sessions' next batches fail (and end them).
    const fail = (error: Error) => {
      if (this.#worker !== worker) return
      this.#worker = null
      this.#forget(errors.INTERNAL(`turn detection failed: ${error.message}`))
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`the turn-detection thread exited with code ${code}`)))
    worker.unref()
    this.#worker = worker
    return worker
  }

  #forget(error: Error): void {
    for (const waiting of this.#waiting.values()) waiting.reject(error)
    this.#waiting.clear()
    this.#idle = new Map()
    this.#idleCount = 0
  }
}

function keyOf(o: TurnDetectorOptions): string {
  return JSON.stringify([
    o.model,
    o.threshold,
    o.silenceDurationMs,
    o.minSpeechSeconds,
    o.maxUtteranceSeconds,
  ])
}
