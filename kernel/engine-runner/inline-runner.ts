import { type DictumError, isDictumError } from '../../errors/catalogue.ts'
import { timeLimit } from '../../lib/timeout.ts'
import type {
  EngineDefinition,
  EngineInstance,
  EngineStream,
  EngineStreamOptions,
  EngineTranscribeRequest,
  EngineTranscribeResult,
} from '../contracts/engine.ts'
import {
  loadFailure,
  loadTimeoutError,
  oversizeFailure,
  streamingUnsupported,
  timeoutError,
  transcribeFailure,
} from './engine-errors.ts'
import { InlineStream } from './inline-stream.ts'
import { toWireError } from './protocol.ts'
import { oversizeReason } from './result-limit.ts'
import { abortReason, closedError, type SlotPriority, SlotQueue } from './slot-queue.ts'
import type {
  EngineRunner,
  EngineRunnerOptions,
  EngineRunnerState,
  EngineRunnerTimeouts,
  RunnerStream,
} from './types.ts'

/**
 * Runs an engine inside the API process (isolation 'none', for engines without native code). Same queue,
 * concurrency and timeouts as the process runner, but a timed-out call can only be abandoned (its signal is
 * aborted), not killed.
 */
export class InlineEngineRunner implements EngineRunner {
  readonly #options: EngineRunnerOptions
  readonly #definition: EngineDefinition
  readonly #slots: SlotQueue
  #instance: EngineInstance | null = null
  #state: EngineRunnerState = 'idle'
  #lastError: DictumError | null = null
  #loading: Promise<void> | null = null
  #closing: Promise<void> | null = null
  /** Live utterances not yet ended: close() ends them. */
  readonly #streams = new Set<InlineStream>()

  constructor(options: EngineRunnerOptions, definition: EngineDefinition) {
    // A copy: setTimeouts changes its timeouts.
    this.#options = { ...options }
    this.#definition = definition
    this.#slots = new SlotQueue(options.concurrency, options.engineId)
  }

  get state(): EngineRunnerState {
    return this.#state
  }

  get lastError(): DictumError | null {
    return this.#lastError
  }

  /** Transcriptions waiting for a slot (for diagnostics and tests). */
  get waiting(): number {
    return this.#slots.waiting
  }

  load(): Promise<void> {
    if (this.#closing) return Promise.reject(closedError(this.#options.engineId))
    if (this.#state === 'ready') return Promise.resolve()
    this.#loading ??= this.#loadOnce().finally(() => {
      this.#loading = null
    })
    return this.#loading
  }

  async openStream(options: EngineStreamOptions, signal?: AbortSignal): Promise<RunnerStream> {
    const { engineId, context, logger } = this.#options
    if (this.#definition.capabilities(context.options as never).streaming !== true) {
      throw streamingUnsupported(engineId)
    }
    await this.load()
    if (signal?.aborted) throw abortReason(signal)
    const instance = this.#instance as EngineInstance
    if (!instance.openStream) throw streamingUnsupported(engineId)
    let stream: EngineStream
    try {
      stream = await instance.openStream(options)
    } catch (error) {
      if (isDictumError(error)) throw error
      throw transcribeFailure(engineId, toWireError(error), 'openStream')
    }
    const opened = new InlineStream({
      engineId,
      stream,
      logger,
      timeoutMs: () => this.#options.requestTimeoutMs,
      onEnd: (ended) => this.#streams.delete(ended),
    })
    // Closed while the engine opened it: it ends at once, like the streams close() found.
    if (this.#closing) opened.fail(closedError(engineId))
    else this.#streams.add(opened)
    return opened
  }

  async transcribe(
    request: EngineTranscribeRequest,
    signal?: AbortSignal,
    priority?: SlotPriority,
  ): Promise<EngineTranscribeResult> {
    const release = await this.#slots.acquire(signal, priority)
    try {
      await this.load()
      if (signal?.aborted) throw abortReason(signal)
      return await this.#call(this.#instance as EngineInstance, request, signal)
    } finally {
      release()
    }
  }

  setTimeouts(timeouts: EngineRunnerTimeouts): void {
    this.#options.requestTimeoutMs = timeouts.requestTimeoutMs
    this.#options.loadTimeoutMs = timeouts.loadTimeoutMs
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#state = 'closed'
      this.#slots.close()
      for (const stream of [...this.#streams]) stream.fail(closedError(this.#options.engineId))
      const instance = this.#instance
      this.#instance = null
      await instance?.close()
    })()
    return this.#closing
  }

  async #loadOnce(): Promise<void> {
    const { engineId, context, logger, loadTimeoutMs } = this.#options
    this.#state = 'loading'
    let instance: EngineInstance | undefined
    const loading = (async () => {
      instance = await this.#definition.create({ ...context, logger } as Parameters<
        EngineDefinition['create']
      >[0])
      await instance.load()
    })()
    const limit = timeLimit(loadTimeoutMs, { reason: () => loadTimeoutError(engineId, loadTimeoutMs) })
    try {
      await limit.race(loading)
    } catch (error) {
      // An abandoned or failed instance still gets its close(), whenever its load settles.
      void loading.finally(() => instance?.close()).catch(() => {})
      const failure =
        isDictumError(error) && error.code === 'ENGINE_LOAD_FAILED'
          ? error
          : loadFailure(engineId, toWireError(error))
      this.#lastError = failure
      if (!this.#closing) this.#state = 'failed'
      throw failure
    } finally {
      limit.clear()
    }
    if (this.#closing) {
      await instance?.close()
      throw closedError(engineId)
    }
    this.#instance = instance as EngineInstance
    this.#state = 'ready'
    this.#lastError = null
  }

  async #call(
    instance: EngineInstance,
    request: EngineTranscribeRequest,
    signal?: AbortSignal,
  ): Promise<EngineTranscribeResult> {
    const { engineId, requestTimeoutMs } = this.#options
    const limit = timeLimit(requestTimeoutMs, {
      reason: () => {
        this.#lastError = timeoutError(engineId, requestTimeoutMs)
        return this.#lastError
      },
    })
    // The engine stops on either; only the time limit is raced: a caller's abort waits for the engine to stop.
    const engineSignal = signal ? AbortSignal.any([signal, limit.signal]) : limit.signal
    try {
      const result = await limit.race(instance.transcribe(request, engineSignal))
      const oversize = oversizeReason(result, request.samples.length)
      if (oversize) throw oversizeFailure(engineId, oversize)
      return result
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal)
      if (isDictumError(error)) throw error
      throw transcribeFailure(engineId, toWireError(error))
    } finally {
      limit.clear()
    }
  }
}
