import os from 'node:os'
import { type DictumError, errors, isDictumError } from '../../errors/catalogue.ts'
import type {
  EngineStreamOptions,
  EngineTranscribeRequest,
  EngineTranscribeResult,
} from '../contracts/engine.ts'
import { sharedMemoryDir } from './audio-handoff.ts'
import { NotStartedError, streamingUnsupported } from './engine-errors.ts'
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

/** A stream host with no stream left is stopped after this long, so its model's memory is given back. */
export const STREAM_HOST_IDLE_MS = 30_000

/**
 * Runs an engine in a pool of child processes (hosts), at most `concurrency` of them, each holding its own
 * loaded model and serving one transcription at a time. Hosts start lazily: `load()` starts the first, the
 * queue starts more when requests wait. A host that dies is dropped and replaced on next use.
 *
 * Live utterances (streams) run on hosts of their own, so a live session never waits behind a long file:
 * several streams per host, a new stream on the least-loaded one, a new host while every host has streams
 * and there are fewer than `maxStreamHosts` (default: the machine's available parallelism). A stream host
 * left without streams is stopped after `streamHostIdleMs`, but the last one while live sessions hold it.
 */
export class ProcessEngineRunner implements EngineRunner {
  readonly #options: EngineRunnerOptions
  readonly #slots: SlotQueue
  readonly #hosts = new Set<EngineHost>()
  readonly #streamHosts = new Set<EngineHost>()
  /** Stream hosts without streams, and the timer that stops each. */
  readonly #idleStreamHosts = new Map<EngineHost, NodeJS.Timeout>()
  /**
   * Live sessions open on the engine (holdStreams): as many stream hosts as sessions (up to
   * `maxStreamHosts`) are started and kept while they are open.
   */
  #streamHolds = 0
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
    const live = [...this.#liveHosts(), ...this.#liveStreamHosts()]
    if (live.some((host) => host.status === 'idle' || host.status === 'busy')) return 'ready'
    if (live.length > 0) return 'loading'
    return this.#loadFailed ? 'failed' : 'idle'
  }

  get lastError(): DictumError | null {
    return this.#lastError
  }

  /** Transcriptions waiting for a slot (for diagnostics and tests). */
  get waiting(): number {
    return this.#slots.waiting
  }

  /** Process ids of the live hosts (for diagnostics and tests). */
  get hostPids(): number[] {
    return this.#liveHosts().flatMap((host) => (host.pid === undefined ? [] : [host.pid]))
  }

  /** Process ids of the live stream hosts (for diagnostics and tests). */
  get streamHostPids(): number[] {
    return this.#liveStreamHosts().flatMap((host) => (host.pid === undefined ? [] : [host.pid]))
  }

  load(): Promise<void> {
    if (this.#closing) return Promise.reject(closedError(this.#options.engineId))
    if (this.state === 'ready') return Promise.resolve()
    this.#loading ??= this.#loadOne().finally(() => {
      this.#loading = null
    })
    return this.#loading
  }

  async openStream(options: EngineStreamOptions, signal?: AbortSignal): Promise<RunnerStream> {
    const { engineId, definition, context, logger } = this.#options
    if (this.#closing) throw closedError(engineId)
    // Without the definition here (a test's runner), the host refuses an engine without openStream.
    if (definition && definition.capabilities(context.options as never).streaming !== true) {
      throw streamingUnsupported(engineId)
    }
    try {
      let stream: RunnerStream
      try {
        stream = await this.#openOnHost(options, signal)
      } catch (error) {
        if (!(error instanceof NotStartedError)) throw error
        logger.info(
          { engine: engineId, reason: error.failure.message },
          'engine host ended before it opened the stream: retrying on a new host',
        )
        stream = await this.#openOnHost(options, signal)
      }
      // A crash or memory limit mid-stream shows in the engine's status, as a request's would.
      stream.failed.catch((error) => this.#record(error))
      return stream
    } catch (error) {
      const failure = error instanceof NotStartedError ? error.failure : error
      this.#record(failure)
      throw failure
    }
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

  holdStreams(): () => void {
    this.#streamHolds++
    // A session's first utterance should not wait for a host to start and load the model, nor share a
    // host (one core) with another session's utterance while a core is free: a host per open session
    // starts now, up to the bound. Sessions speaking at once get as many hosts anyway (#pickStreamHost).
    if (!this.#closing && this.#liveStreamHosts().length < this.#heldStreamHosts())
      this.#streamHostIdle(this.#spawn(this.#streamHosts))
    let held = true
    return () => {
      if (!held) return
      held = false
      this.#streamHolds--
      // Hosts no longer kept for the holds get their idle time from now.
      for (const host of this.#liveStreamHosts()) this.#streamHostIdle(host)
    }
  }

  setTimeouts(timeouts: EngineRunnerTimeouts): void {
    this.#options.requestTimeoutMs = timeouts.requestTimeoutMs
    this.#options.loadTimeoutMs = timeouts.loadTimeoutMs
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#slots.close()
      for (const timer of this.#idleStreamHosts.values()) clearTimeout(timer)
      this.#idleStreamHosts.clear()
      await Promise.all([...this.#hosts, ...this.#streamHosts].map((host) => host.stop()))
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

  async #openOnHost(options: EngineStreamOptions, signal?: AbortSignal): Promise<RunnerStream> {
    const host = this.#pickStreamHost()
    host.streamReservations++
    try {
      const fresh = host.status === 'loading'
      await this.#awaitLoad(host, signal)
      if (fresh) this.#markLoaded()
      if (signal?.aborted) throw abortReason(signal)
      return await host.openStream(options, () => this.#options.requestTimeoutMs)
    } finally {
      host.streamReservations--
      this.#streamHostIdle(host)
    }
  }

  /** The stream hosts kept for the open live sessions: one each, up to the bound. */
  #heldStreamHosts(): number {
    return Math.min(this.#streamHolds, this.#maxStreamHosts())
  }

  #maxStreamHosts(): number {
    return Math.max(1, this.#options.maxStreamHosts ?? os.availableParallelism())
  }

  /** The least-loaded stream host, or a new one while every host has streams and there is room. */
  #pickStreamHost(): EngineHost {
    if (this.#closing) throw closedError(this.#options.engineId)
    const load = (host: EngineHost) => host.streamCount + host.streamReservations
    // The least loaded first, and among equals one whose model is loaded (a fresh host is still loading).
    const loading = (host: EngineHost) => (host.status === 'loading' ? 1 : 0)
    const live = this.#liveStreamHosts().sort((a, b) => load(a) - load(b) || loading(a) - loading(b))
    const least = live[0]
    const host =
      least && (load(least) === 0 || live.length >= this.#maxStreamHosts())
        ? least
        : this.#spawn(this.#streamHosts)
    const timer = this.#idleStreamHosts.get(host)
    if (timer) clearTimeout(timer)
    this.#idleStreamHosts.delete(host)
    return host
  }

  /** A stream host with nothing to do is stopped after a while (a new stream in the meantime keeps it). */
  #streamHostIdle(host: EngineHost): void {
    if (this.#closing || host.status === 'dead' || this.#idleStreamHosts.has(host)) return
    if (host.streamCount + host.streamReservations > 0) return
    const timer = setTimeout(() => {
      this.#idleStreamHosts.delete(host)
      if (host.streamCount + host.streamReservations > 0) return
      // Kept for the open sessions; the end of the last hold starts its idle time again.
      if (this.#liveStreamHosts().length <= this.#heldStreamHosts()) return
      this.#options.logger.debug(
        { engine: this.#options.engineId, pid: host.pid },
        'stopping an idle stream host',
      )
      void host.stop()
    }, this.#options.streamHostIdleMs ?? STREAM_HOST_IDLE_MS)
    timer.unref()
    this.#idleStreamHosts.set(host, timer)
  }

  async #loadOne(): Promise<void> {
    const live = this.#liveHosts()
    const host = live.find((h) => h.status === 'loading') ?? this.#spawn(this.#hosts)
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
      (this.#liveHosts().length < this.#slots.size ? this.#spawn(this.#hosts) : undefined)
    if (!host) throw errors.ENGINE_BUSY(`${this.#options.engineId}: no engine process is free.`)
    host.reserved = true
    return host
  }

  /** Starts a host in `pool` (the transcription hosts or the stream hosts). */
  #spawn(pool: Set<EngineHost>): EngineHost {
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
      onExit: (exited) => {
        pool.delete(exited)
        const timer = this.#idleStreamHosts.get(exited)
        if (timer) clearTimeout(timer)
        this.#idleStreamHosts.delete(exited)
      },
      onStreamEnd: (ended) => this.#streamHostIdle(ended),
    })
    pool.add(host)
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

  /** Stream hosts that take new streams (not dead, not being stopped for idleness). */
  #liveStreamHosts(): EngineHost[] {
    return [...this.#streamHosts].filter((host) => host.status !== 'dead' && !host.stopping)
  }
}
