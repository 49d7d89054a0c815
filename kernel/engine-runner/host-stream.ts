/**
 * A live utterance on an engine in a host process: the API-process side. Chunks, the finish and the cancel
 * go to the host as messages (it runs each stream's calls in order); the host's partials, final result and
 * errors come back through {@link EngineHost}, which also ends the stream when the host dies.
 */

import type { DictumError } from '../../errors/catalogue.ts'
import type { EnginePartial, EngineTranscribeResult, PluginLogger } from '../contracts/engine.ts'
import { timeoutError } from './engine-errors.ts'
import type { ParentMessage } from './protocol.ts'
import { StreamCore } from './stream-core.ts'
import type { RunnerStream } from './types.ts'

/** What a stream needs of its host. */
export interface StreamChannel {
  send(message: ParentMessage): void
  /** The stream's finish timed out: the engine may be stuck, so its host is stopped (failing its other streams with `error`). */
  stopFor(error: DictumError): void
  /** The stream has ended: the host forgets it. */
  ended(stream: HostStream): void
}

export class HostStream implements RunnerStream {
  readonly id: number
  readonly #engineId: string
  readonly #channel: StreamChannel
  readonly #timeoutMs: () => number
  readonly #core: StreamCore

  constructor(options: {
    id: number
    engineId: string
    logger: PluginLogger
    channel: StreamChannel
    /** `speech.timeoutMs` in force when `finish` is called. */
    timeoutMs: () => number
  }) {
    this.id = options.id
    this.#engineId = options.engineId
    this.#channel = options.channel
    this.#timeoutMs = options.timeoutMs
    this.#core = new StreamCore(options.engineId, options.logger, () => {
      // The host ignores it for a stream it already ended (final result or error).
      this.#channel.send({ type: 'stream-cancel', id: this.id })
      this.#channel.ended(this)
    })
  }

  get failed(): Promise<never> {
    return this.#core.failed
  }

  write(samples: Float32Array): void {
    if (!this.#core.open) return
    this.#core.count(samples.length)
    // Serialised (copied) by send itself: the caller may reuse the array at once.
    this.#channel.send({ type: 'stream-write', id: this.id, samples })
  }

  onPartial(listener: (partial: EnginePartial) => void): void {
    this.#core.onPartial(listener)
  }

  finish(): Promise<EngineTranscribeResult> {
    const ms = this.#timeoutMs()
    const { promise, start } = this.#core.finish(ms, () => {
      const error = timeoutError(this.#engineId, ms)
      this.#channel.stopFor(error)
      return error
    })
    if (start) this.#channel.send({ type: 'stream-finish', id: this.id })
    return promise
  }

  cancel(): void {
    this.#core.cancel()
  }

  /** From the host: a new hypothesis. */
  partial(partial: EnginePartial): void {
    this.#core.partial(partial)
  }

  /** From the host: the final result. */
  final(result: EngineTranscribeResult): void {
    this.#core.finished(result)
  }

  /** The engine failed, or its host died or is closing. */
  fail(error: unknown): void {
    this.#core.end(error)
  }
}
