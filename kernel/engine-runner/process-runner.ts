import type {
  EngineStreamOptions,
  EngineTranscribeRequest,
  EngineTranscribeResult,
} from '../contracts/engine.ts'
import { type DictumError, errors, isDictumError } from '../errors.ts'
import { sharedMemoryDir } from './audio-handoff.ts'
import { NotStartedError } from './engine-errors.ts'
import { EngineHost } from './engine-host.ts'
import { DEFAULT_SAMPLE_MS, memoryLimitMb } from './memory-limit.ts'
import { abortReason, closedError, type SlotPriority, SlotQueue } from './slot-queue.ts'
import type {
  EngineRunner,
  EngineRunnerOptions,
  EngineRunnerState,
  EngineRunnerTimeouts,
  RunnerStream,
} from './types.ts'

// MODEL_INVALID from a transcription: the model loaded but yields garbage (NaN scores), the engine shows failed.
const recordedCodes = new Set([
  'ENGINE_CRASHED',
  'ENGINE_TIMEOUT',
  'ENGINE_LOAD_FAILED',
  'ENGINE_MEMORY_LIMIT',
  'MODEL_INVALID',
])

/**
 * Runs an engine in a pool of child processes (hosts), at most `concurrency` of them, each holding its own
 * loaded model and serving one transcription at a time. Hosts start lazily: `load()` starts the first, the
 * queue starts more when requests wait. A host that dies is dropped and replaced on next use.
 */
export class ProcessEngineRunner implements EngineRunner {
  readonly #options: EngineRunnerOptions
  readonly #slots: SlotQueue
  readonly #hosts = new Set<EngineHost>()
  #loading: Promise<void> | null = null
  #loadFailed = false
  #lastError: DictumError | null = null
  #closing: Promise<void> | null = null

  constructor(options: EngineRunnerOptions) {
    // A copy: setTimeouts changes its timeouts.
    this.#options = { ...options }
    this.#slots = new SlotQueue(options.concurrency, options.engineId)
  }

  get state(): EngineRunnerState {
    if (this.#closing) return 'closed'
    const live = this.#liveHosts()
    if (live.some((host) => host.status === 'idle' || host.status === 'busy')) return 'ready'
    if (live.length > 0) return 'loading'
    return this.#loadFailed ? 'failed' : 'idle'
  }

  get lastError(): DictumError | null {
    return this.#lastError
  }

  /** Process ids of the live hosts (for diagnostics and tests). */
  get hostPids(): number[] {
    return this.#liveHosts().flatMap((host) => (host.pid === undefined ? [] : [host.pid]))
  }

  load(): Promise<void> {
    if (this.#closing) return Promise.reject(closedError(this.#options.engineId))
    if (this.state === 'ready') return Promise.resolve()
    this.#loading ??= this.#loadOne().finally(() => {
      this.#loading = null
    })
    return this.#loading
  }

  // Placeholder until streams run in engine hosts (issue 13, in progress): no engine streams yet.
  async openStream(_options: EngineStreamOptions, _signal?: AbortSignal): Promise<RunnerStream> {
    throw errors.ENGINE_STREAMING_UNSUPPORTED(`${this.#options.engineId}.`)
  }

  async transcribe(
    request: EngineTranscribeRequest,
    signal?: AbortSignal,
    priority?: SlotPriority,
  ): Promise<EngineTranscribeResult> {
    const release = await this.#slots.acquire(signal, priority)
    try {
      try {
        return await this.#transcribeOnHost(request, signal)
      } catch (error) {
        if (!(error instanceof NotStartedError)) throw error
        // The host was dying when the request reached it (e.g. it crashed while idle a moment before): the
        // engine never saw the request, so it gets one more try on a fresh host rather than that crash's 500.
        this.#options.logger.info(
          { engine: this.#options.engineId, reason: error.failure.message },
          'engine host ended before it started the request: retrying on a new host',
        )
        return await this.#transcribeOnHost(request, signal)
      }
    } catch (error) {
      const failure = error instanceof NotStartedError ? error.failure : error
      this.#record(failure)
      throw failure
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
      this.#slots.close()
      await Promise.all([...this.#hosts].map((host) => host.stop()))
    })()
    return this.#closing
  }

  async #transcribeOnHost(
    request: EngineTranscribeRequest,
    signal?: AbortSignal,
  ): Promise<EngineTranscribeResult> {
    const host = this.#reserveHost()
    try {
      const fresh = host.status === 'loading'
      await this.#awaitLoad(host, signal)
      if (fresh) this.#markLoaded()
      if (signal?.aborted) throw abortReason(signal)
      return await host.transcribe(request, this.#options.requestTimeoutMs, signal)
    } finally {
      host.reserved = false
    }
  }

  async #loadOne(): Promise<void> {
    const live = this.#liveHosts()
    const host = live.find((h) => h.status === 'loading') ?? this.#spawn()
    try {
      await host.ready
      this.#markLoaded()
    } catch (error) {
      this.#record(error)
      throw error
    }
  }

  #awaitLoad(host: EngineHost, signal?: AbortSignal): Promise<void> {
    if (!signal) return host.ready
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(abortReason(signal))
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      host.ready.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
    })
  }

  /**
   * Picks a host for a request that holds a slot. Each slot holder reserves at most one host and there are
   * at most `concurrency` live hosts, so a free host or room for a new one always exists.
   */
  #reserveHost(): EngineHost {
    if (this.#closing) throw closedError(this.#options.engineId)
    const free = this.#liveHosts().filter((h) => !h.reserved)
    const host =
      free.find((h) => h.status === 'idle') ??
      free.find((h) => h.status === 'loading') ??
      (this.#liveHosts().length < this.#slots.size ? this.#spawn() : undefined)
    if (!host) throw errors.ENGINE_BUSY(`${this.#options.engineId}: no engine process is free.`)
    host.reserved = true
    return host
  }

  #spawn(): EngineHost {
    const { engineId, moduleSource, context, loadTimeoutMs, logger } = this.#options
    const host = new EngineHost({
      engineId,
      moduleSource,
      context,
      loadTimeoutMs,
      memoryLimitMb: memoryLimitMb(this.#options.memoryLimitMb),
      memorySampleMs: this.#options.memorySampleMs ?? DEFAULT_SAMPLE_MS,
      logger,
      audioDir: this.#options.audioDir === undefined ? sharedMemoryDir() : this.#options.audioDir,
      onExit: (exited) => this.#hosts.delete(exited),
    })
    this.#hosts.add(host)
    logger.debug({ engine: engineId, pid: host.pid }, 'engine host started')
    return host
  }

  #markLoaded(): void {
    this.#loadFailed = false
    this.#lastError = null
  }

  #record(error: unknown): void {
    if (!isDictumError(error)) return
    if (error.code === 'ENGINE_LOAD_FAILED') this.#loadFailed = true
    if (recordedCodes.has(error.code)) this.#lastError = error
  }

  #liveHosts(): EngineHost[] {
    return [...this.#hosts].filter((host) => host.status !== 'dead')
  }
}
