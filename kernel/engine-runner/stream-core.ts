/**
 * What every {@link RunnerStream} shares, wherever its engine runs (in process or in an engine host): the
 * partial listeners, the `failed` promise, the one `finish` with its time limit, and the rule that a stream
 * ends exactly once (finished, failed, cancelled or closed) and then frees the engine's stream.
 */

import type { DictumError } from '../../errors/catalogue.ts'
import type { EnginePartial, EngineTranscribeResult, PluginLogger } from '../contracts/engine.ts'
import { engineDetail, oversizeFailure } from './engine-errors.ts'
import { oversizeReason } from './result-limit.ts'

type Phase = 'open' | 'finishing' | 'ended'

/** What a pending `finish` of a cancelled stream rejects with (and `finish` after `cancel`). */
export function streamCancelledError(): DOMException {
  return new DOMException('The stream was cancelled', 'AbortError')
}

export class StreamCore {
  readonly failed: Promise<never>
  readonly #engineId: string
  readonly #logger: PluginLogger
  /** Frees the engine's stream; called once, when the stream ends for whatever reason. */
  readonly #release: () => void
  readonly #listeners: ((partial: EnginePartial) => void)[] = []
  #rejectFailed: (error: unknown) => void = () => {}
  #phase: Phase = 'open'
  #lastText: string | null = null
  #sampleCount = 0
  #endError: unknown = null
  #finish: {
    promise: Promise<EngineTranscribeResult>
    resolve: (result: EngineTranscribeResult) => void
    reject: (error: unknown) => void
    timer: NodeJS.Timeout
  } | null = null

  constructor(engineId: string, logger: PluginLogger, release: () => void) {
    this.#engineId = engineId
    this.#logger = logger
    this.#release = release
    this.failed = new Promise<never>((_, reject) => {
      this.#rejectFailed = reject
    })
    // Whoever holds the stream may never look at `failed` (e.g. it finished): no unhandled rejection then.
    this.failed.catch(() => {})
  }

  /** Audio is still taken (neither finish nor an end yet). */
  get open(): boolean {
    return this.#phase === 'open'
  }

  get ended(): boolean {
    return this.#phase === 'ended'
  }

  /** Counts samples written, for the final result's size cap. */
  count(samples: number): void {
    this.#sampleCount += samples
  }

  onPartial(listener: (partial: EnginePartial) => void): void {
    this.#listeners.push(listener)
  }

  /** A hypothesis from the engine: passed on when it is new (an unchanged text is not news). */
  partial(partial: EnginePartial | null | undefined): void {
    if (this.#phase === 'ended' || typeof partial?.text !== 'string') return
    if (partial.text === this.#lastText) return
    this.#lastText = partial.text
    for (const listener of this.#listeners) {
      try {
        listener({ text: partial.text })
      } catch (error) {
        this.#logger.warn({ engine: this.#engineId, err: error }, 'a stream partial listener threw')
      }
    }
  }

  /**
   * Starts the finish (later calls get the same promise): `timedOut` gives the error when no final result
   * came within `timeoutMs` (and may stop the engine). Returns null as `start` when the finish had already
   * started or the stream had ended, so the caller asks the engine only once.
   */
  finish(
    timeoutMs: number,
    timedOut: () => DictumError,
  ): { promise: Promise<EngineTranscribeResult>; start: boolean } {
    if (this.#finish) return { promise: this.#finish.promise, start: false }
    if (this.#phase === 'ended') return { promise: Promise.reject(this.#endError), start: false }
    this.#phase = 'finishing'
    let resolve: (result: EngineTranscribeResult) => void = () => {}
    let reject: (error: unknown) => void = () => {}
    const promise = new Promise<EngineTranscribeResult>((res, rej) => {
      resolve = res
      reject = rej
    })
    const timer = setTimeout(() => this.end(timedOut()), timeoutMs)
    this.#finish = { promise, resolve, reject, timer }
    return { promise, start: true }
  }

  /** The engine's final result (checked against the size cap like a transcription's). */
  finished(result: EngineTranscribeResult): void {
    const finish = this.#finish
    if (!finish || this.#phase === 'ended') return
    const oversize = oversizeReason(result, this.#sampleCount)
    if (oversize) {
      this.end(oversizeFailure(this.#engineId, oversize))
      return
    }
    this.#phase = 'ended'
    clearTimeout(finish.timer)
    this.#safeRelease()
    finish.resolve(result)
  }

  /**
   * Ends the stream with an error: a pending finish rejects with it, else `failed` does. Later calls do
   * nothing (the first failure is the one reported).
   */
  end(error: unknown): void {
    if (this.#phase === 'ended') return
    this.#phase = 'ended'
    this.#endError = error
    this.#safeRelease()
    const finish = this.#finish
    if (finish) {
      clearTimeout(finish.timer)
      finish.reject(error)
    } else {
      this.#rejectFailed(error)
    }
  }

  /** Drops the utterance: a pending finish rejects with an AbortError, `failed` never rejects. */
  cancel(): void {
    if (this.#phase === 'ended') return
    this.#phase = 'ended'
    this.#endError = streamCancelledError()
    this.#safeRelease()
    const finish = this.#finish
    if (finish) {
      clearTimeout(finish.timer)
      finish.reject(this.#endError)
    }
  }

  #safeRelease(): void {
    try {
      this.#release()
    } catch (error) {
      this.#logger.warn(
        { engine: this.#engineId, err: error },
        engineDetail(this.#engineId, 'freeing a stream failed'),
      )
    }
  }
}
