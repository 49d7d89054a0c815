/**
 * A live utterance on an engine running in the API process (isolation 'none'): the engine's stream called
 * directly, one call at a time in the order they were made.
 */

import { isDictumError } from '../../errors/catalogue.ts'
import type {
  EnginePartial,
  EngineStream,
  EngineTranscribeResult,
  PluginLogger,
} from '../contracts/engine.ts'
import { type EngineOperation, timeoutError, transcribeFailure } from './engine-errors.ts'
import { toWireError } from './protocol.ts'
import { StreamCore } from './stream-core.ts'
import type { RunnerStream } from './types.ts'

export class InlineStream implements RunnerStream {
  readonly #engineId: string
  readonly #stream: EngineStream
  readonly #core: StreamCore
  readonly #timeoutMs: () => number
  /** The engine's calls, chained: each waits for the one before. */
  #queue: Promise<void> = Promise.resolve()

  constructor(options: {
    engineId: string
    stream: EngineStream
    logger: PluginLogger
    /** `speech.timeoutMs` in force when `finish` is called. */
    timeoutMs: () => number
    /** Called once when the stream has ended (the runner forgets it). */
    onEnd: (stream: InlineStream) => void
  }) {
    this.#engineId = options.engineId
    this.#stream = options.stream
    this.#timeoutMs = options.timeoutMs
    this.#core = new StreamCore(options.engineId, options.logger, () => {
      options.onEnd(this)
      // After the call in flight: an engine's stream is never called twice at once.
      this.#enqueue(() => this.#stream.cancel())
    })
  }

  get failed(): Promise<never> {
    return this.#core.failed
  }

  write(samples: Float32Array): void {
    if (!this.#core.open) return
    // The caller may reuse its array once write returns; the engine gets it later.
    const copy = samples.slice()
    this.#core.count(copy.length)
    this.#enqueue(async () => {
      if (this.#core.ended) return
      try {
        this.#core.partial(await this.#stream.accept(copy))
      } catch (error) {
        this.#core.end(this.#failure('accept', error))
      }
    })
  }

  onPartial(listener: (partial: EnginePartial) => void): void {
    this.#core.onPartial(listener)
  }

  finish(): Promise<EngineTranscribeResult> {
    const ms = this.#timeoutMs()
    const { promise, start } = this.#core.finish(ms, () => timeoutError(this.#engineId, ms))
    if (start) {
      try {
        // Told now, not after the queued chunks (see EngineStream.finishing).
        this.#stream.finishing?.()
      } catch (error) {
        this.#core.end(this.#failure('finish', error))
      }
      this.#enqueue(async () => {
        if (this.#core.ended) return
        try {
          this.#core.finished(await this.#stream.finish())
        } catch (error) {
          this.#core.end(this.#failure('finish', error))
        }
      })
    }
    return promise
  }

  cancel(): void {
    this.#core.cancel()
  }

  /** Ends the stream with `error` (the runner is closing). */
  fail(error: unknown): void {
    this.#core.end(error)
  }

  #enqueue(call: () => unknown): void {
    this.#queue = this.#queue.then(call).then(
      () => {},
      () => {},
    )
  }

  #failure(operation: EngineOperation, error: unknown) {
    if (isDictumError(error)) return error
    return transcribeFailure(this.#engineId, toWireError(error), operation)
  }
}
