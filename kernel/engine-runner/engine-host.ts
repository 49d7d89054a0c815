import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { DictumError } from '../../errors/catalogue.ts'
import type {
  EngineStreamOptions,
  EngineTranscribeRequest,
  EngineTranscribeResult,
  PluginLogger,
} from '../contracts/engine.ts'
import { AudioHandoff } from './audio-handoff.ts'
import {
  crashError,
  describeExit,
  loadFailure,
  loadTimeoutError,
  memoryLimitError,
  NotStartedError,
  oversizeFailure,
  timeoutError,
  transcribeFailure,
} from './engine-errors.ts'
import { HostStream } from './host-stream.ts'
import { heapLimitFlag, isHeapOutOfMemoryLine, MemoryWatch, toMb } from './memory-limit.ts'
import { OutputLines } from './output-lines.ts'
import type { HostMessage, ParentMessage } from './protocol.ts'
import { oversizeReason } from './result-limit.ts'
import { abortReason, closedError } from './slot-queue.ts'
import type { EngineRunnerContext } from './types.ts'

export interface HostOptions {
  engineId: string
  moduleSource: string
  context: EngineRunnerContext
  loadTimeoutMs: number
  /** Config `speech.memoryLimitMb` (resolved): over it the host is killed. */
  memoryLimitMb: number
  /** How often resident memory is sampled while the host works; 0: never. */
  memorySampleMs: number
  logger: PluginLogger
  /** Where large pieces of audio are handed over (see audio-handoff.ts); null sends them through the pipe. */
  audioDir: string | null
  /** Called once when the process has exited (for whatever reason). */
  onExit: (host: EngineHost) => void
  /** Called when one of the host's streams has ended (for a stream host's idle time). */
  onStreamEnd?: (host: EngineHost) => void
}

/** A stream the host carries: `opening` is set until the engine has opened it. */
interface StreamEntry {
  stream: HostStream
  opening: { resolve: (stream: HostStream) => void; reject: (error: unknown) => void } | null
}

interface Pending {
  id: number
  /** Of the request's audio, for the result's size cap. */
  sampleCount: number
  /** The host acknowledged the request (its engine may have seen it). */
  started: boolean
  resolve: (result: EngineTranscribeResult) => void
  reject: (error: unknown) => void
  timer: NodeJS.Timeout
  /** Set once the request was abandoned: when it fires the host is replaced. */
  abandoned: NodeJS.Timeout | null
  signal: AbortSignal | undefined
  onAbort: () => void
}

export type HostStatus = 'loading' | 'idle' | 'busy' | 'dead'

// The engine host's own process next to this module: host-process.ts from the sources, .js when compiled.
const hostFile = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? './host-process.ts' : './host-process.js', import.meta.url),
)
const closeGraceMs = 2000
/**
 * How long an engine may take to stop after its request was abandoned (the client went away) before its host
 * is killed: an engine that ignores the abort would otherwise hold its slot until `speech.timeoutMs`.
 */
export const ABANDON_GRACE_MS = 2000
/**
 * After the host exits, how long to wait for the rest of its IPC messages and output (an acknowledgement or
 * V8's out-of-memory line may still be in the pipes). They are all read within a few ms; the bound only
 * matters when a process the engine started keeps the host's stdout open.
 */
const drainWaitMs = 1000

/**
 * The API-process side of one engine host: starts the child, loads the engine in it, sends one
 * transcription at a time, turns every way the child can fail into a catalogue error, and stops it.
 */
export class EngineHost {
  readonly ready: Promise<void>
  readonly exited: Promise<void>
  /** Set by the pool while a request holds this host (including while it waits for the load). */
  reserved = false
  /** Streams on their way to this host (it is loading for them): counted as its load by the pool. */
  streamReservations = 0
  readonly #options: HostOptions
  readonly #child: ChildProcess
  readonly #audio: AudioHandoff
  #status: HostStatus = 'loading'
  #stopping = false
  #nextId = 1
  #pending: Pending | null = null
  readonly #streams = new Map<number, StreamEntry>()
  /** Why the host was stopped, when a stream's finish timed out: the error its other streams get. */
  #stoppedFor: DictumError | null = null
  #settleLoad: { resolve: () => void; reject: (error: DictumError) => void; timer: NodeJS.Timeout } | null =
    null
  /** How the process ended, once it has. */
  #ended: string | null = null
  #resolveExited: () => void = () => {}
  readonly #memoryWatch: MemoryWatch | null
  /** Why the host is over its memory limit (V8's heap or the watch), once it is. */
  #overMemory: string | null = null

  constructor(options: HostOptions) {
    this.#options = options
    this.#audio = new AudioHandoff(options.audioDir)
    const tsx = needsTsx(hostFile, options.moduleSource) ? ['--import', import.meta.resolve('tsx')] : []
    this.#child = fork(hostFile, [], {
      execArgv: [heapLimitFlag(options.memoryLimitMb), ...tsx],
      serialization: 'advanced',
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: { ...process.env, DICTUM_ENGINE_HOST_PARENT_PID: String(process.pid) },
    })
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => this.#loadTimedOut(), options.loadTimeoutMs)
      this.#settleLoad = { resolve, reject, timer }
    })
    this.ready.catch(() => {})
    this.exited = new Promise((resolve) => {
      this.#resolveExited = resolve
    })
    const pid = this.#child.pid
    this.#memoryWatch =
      pid === undefined || options.memorySampleMs <= 0
        ? null
        : new MemoryWatch(
            pid,
            options.memoryLimitMb,
            options.memorySampleMs,
            () => this.#status === 'loading' || this.#status === 'busy' || this.#streams.size > 0,
            (bytes) => this.#memoryExceeded(`resident memory ${toMb(bytes)} MB`),
          )
    this.#wire()
  }

  get pid(): number | undefined {
    return this.#child.pid
  }

  get status(): HostStatus {
    return this.#status
  }

  /** stop() was called: the host takes no new work. */
  get stopping(): boolean {
    return this.#stopping
  }

  /** Streams open (or opening) on this host. */
  get streamCount(): number {
    return this.#streams.size
  }

  /**
   * Opens a live utterance on the loaded engine; resolves once the engine has opened it. The host runs each
   * stream's calls in order, any number of streams at once. `timeoutMs` bounds its finish.
   */
  openStream(options: EngineStreamOptions, timeoutMs: () => number): Promise<HostStream> {
    if (this.#status === 'dead' || this.#stopping) return Promise.reject(this.#deadError())
    if (this.#status === 'loading') return Promise.reject(new Error('engine host is loading'))
    const id = this.#nextId++
    const { engineId, logger } = this.#options
    const stream = new HostStream({
      id,
      engineId,
      logger,
      timeoutMs,
      channel: {
        send: (message) => this.#send(message),
        stopFor: (error) => this.#stopFor(error),
        ended: (ended) => this.#streamEnded(ended.id),
      },
    })
    return new Promise((resolve, reject) => {
      this.#streams.set(id, { stream, opening: { resolve, reject } })
      this.#send({ type: 'stream-open', id, options })
    })
  }

  transcribe(
    request: EngineTranscribeRequest,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<EngineTranscribeResult> {
    if (this.#status === 'dead') return Promise.reject(this.#deadError())
    if (this.#status !== 'idle') return Promise.reject(new Error(`engine host is ${this.#status}`))
    this.#status = 'busy'
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      const onAbort = () => this.#abandon(id)
      const timer = setTimeout(() => this.#requestTimedOut(timeoutMs), timeoutMs)
      const { samples, ...rest } = request
      this.#pending = {
        id,
        sampleCount: samples.length,
        started: false,
        resolve,
        reject,
        timer,
        abandoned: null,
        signal,
        onAbort,
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#send({ type: 'transcribe', id, request: rest, audio: this.#audio.pack(samples) })
    })
  }

  /**
   * Stops the host: politely when idle (the engine frees its model), at once when busy or loading. Its
   * streams end at once with the closed error.
   */
  async stop(): Promise<void> {
    if (!this.#stopping && this.#status !== 'dead') {
      this.#stopping = true
      // Ended now, not when the host has exited: a finish already sent gets no result after close().
      this.#failStreams(closedError(this.#options.engineId))
      if (this.#status === 'idle' && this.#child.connected) {
        this.#send({ type: 'close' })
        const timer = setTimeout(() => this.#kill(), closeGraceMs)
        void this.exited.then(() => clearTimeout(timer))
      } else {
        this.#kill()
      }
    }
    await this.exited
  }

  #wire(): void {
    const { engineId, logger } = this.#options
    const pid = this.#child.pid
    this.#child.on('message', (message: HostMessage) => this.#onMessage(message))
    this.#child.on('exit', (code, signal) => this.#onExit(describeExit(code, signal), true))
    this.#child.on('error', (error) => {
      logger.error({ engine: engineId, pid, err: error }, 'engine host process error')
      // A child that never started emits 'error' and no 'exit'.
      if (this.#child.pid === undefined) this.#onExit(`not started: ${error.message}`, false)
      else this.#kill()
    })
    for (const stream of ['stdout', 'stderr'] as const) {
      const readable = this.#child[stream]
      if (!readable) continue
      const heapFull = () =>
        this.#memoryExceeded(`V8 heap over ${this.#options.memoryLimitMb} MB`, { settleNow: false })
      new OutputLines(
        readable,
        (line) => logger.info({ engine: engineId, pid, stream }, line),
        {},
        // Seen before the output cap, which could drop the line.
        (line) => isHeapOutOfMemoryLine(line) && heapFull(),
      )
    }
  }

  #onMessage(message: HostMessage): void {
    const { engineId, moduleSource, context } = this.#options
    if (message.type === 'hello') {
      this.#send({ type: 'init', engineId, moduleSource, context })
    } else if (message.type === 'ready') this.#loaded()
    else if (message.type === 'load-error') this.#loadFailed(loadFailure(engineId, message.error))
    else if (
      message.type.startsWith('stream-') ||
      (message.type === 'oversize' && this.#streams.has(message.id))
    )
      this.#onStreamMessage(message)
    else if (message.type === 'started') {
      if (this.#pending?.id === message.id) this.#pending.started = true
    } else if (message.type === 'result') this.#onResult(message.id, message.result)
    else if (message.type === 'error') {
      this.#settle(message.id, (p) =>
        p.reject(p.signal?.aborted ? abortReason(p.signal) : transcribeFailure(engineId, message.error)),
      )
    } else if (message.type === 'oversize') {
      this.#settle(message.id, (p) => p.reject(oversizeFailure(engineId, message.reason)))
    } else if (message.type === 'log') this.#forwardLog(message)
  }

  #onStreamMessage(message: HostMessage): void {
    if (!('id' in message)) return
    const entry = this.#streams.get(message.id)
    if (!entry) return
    const { engineId } = this.#options
    if (message.type === 'stream-opened') {
      entry.opening?.resolve(entry.stream)
      entry.opening = null
    } else if (message.type === 'stream-partial') entry.stream.partial(message.partial)
    else if (message.type === 'stream-final') entry.stream.final(message.result)
    else if (message.type === 'oversize') entry.stream.fail(oversizeFailure(engineId, message.reason))
    else if (message.type === 'stream-error') {
      const failure = transcribeFailure(engineId, message.error, message.operation)
      if (entry.opening) {
        this.#streams.delete(message.id)
        entry.opening.reject(failure)
        this.#options.onStreamEnd?.(this)
      } else entry.stream.fail(failure)
    }
  }

  /** Ends every stream on the host with `error`; one still opening rejects with `openError` (default: `error`). */
  #failStreams(error: DictumError, openError: unknown = error): void {
    for (const [id, entry] of [...this.#streams]) {
      if (entry.opening) {
        this.#streams.delete(id)
        entry.opening.reject(openError)
      } else entry.stream.fail(error)
    }
  }

  #streamEnded(id: number): void {
    if (this.#streams.delete(id)) this.#options.onStreamEnd?.(this)
  }

  /** A stream's finish timed out: its engine may be stuck in native code, so the host is killed. */
  #stopFor(error: DictumError): void {
    if (this.#status === 'dead') return
    this.#options.logger.warn(
      { engine: this.#options.engineId, pid: this.#child.pid, streams: this.#streams.size },
      'a stream got no final result in time: replacing its engine host',
    )
    this.#stoppedFor = error
    this.#kill()
  }

  /** The host checks the size of results; checked again here since a plugin could send on its own. */
  #onResult(id: number, result: EngineTranscribeResult): void {
    this.#settle(id, (p) => {
      const oversize = oversizeReason(result, p.sampleCount)
      if (oversize) p.reject(oversizeFailure(this.#options.engineId, oversize))
      else p.resolve(result)
    })
  }

  /**
   * The request's client went away: the engine is asked to stop, and if it has not settled after a short
   * grace its host is killed, so the slot is free for the next request instead of held until the timeout.
   */
  #abandon(id: number): void {
    const pending = this.#pending
    if (pending?.id !== id) return
    this.#send({ type: 'abort', id })
    pending.abandoned = setTimeout(() => {
      if (this.#pending?.id !== id) return
      this.#options.logger.info(
        { engine: this.#options.engineId, pid: this.#child.pid, graceMs: ABANDON_GRACE_MS },
        'engine did not stop after its request was abandoned: replacing its host',
      )
      this.#settle(id, (p) => p.reject(abortReason(p.signal as AbortSignal)))
      this.#kill()
    }, ABANDON_GRACE_MS)
  }

  /**
   * Over the memory limit: the host is killed. The watch settles the request at once; V8's out-of-memory
   * line arrives as the host aborts, and the request is settled when the exit is handled.
   */
  #memoryExceeded(what: string, { settleNow = true } = {}): void {
    if (this.#overMemory !== null || this.#stopping) return
    this.#overMemory = what
    const { engineId, memoryLimitMb, logger } = this.#options
    logger.warn(
      { engine: engineId, pid: this.#child.pid, limitMb: memoryLimitMb, what },
      'engine over its memory limit: stopping it',
    )
    if (!settleNow) return
    this.#loadFailed(memoryLimitError(engineId, memoryLimitMb, 'load'))
    const pending = this.#pending
    if (pending)
      this.#settle(pending.id, (p) => p.reject(memoryLimitError(engineId, memoryLimitMb, 'transcribe')))
    this.#failStreams(memoryLimitError(engineId, memoryLimitMb, 'transcribe'))
    this.#kill()
  }

  #forwardLog(message: Extract<HostMessage, { type: 'log' }>): void {
    const base = { engine: this.#options.engineId, pid: this.#child.pid }
    const { obj, msg } = message
    if (typeof obj === 'string' && msg === undefined) this.#options.logger[message.level](base, obj)
    else if (obj && typeof obj === 'object') this.#options.logger[message.level]({ ...base, ...obj }, msg)
    else this.#options.logger[message.level]({ ...base, value: obj }, msg)
  }

  #loaded(): void {
    if (!this.#settleLoad) return
    clearTimeout(this.#settleLoad.timer)
    this.#settleLoad.resolve()
    this.#settleLoad = null
    if (this.#status === 'loading') this.#status = 'idle'
  }

  #loadFailed(error: DictumError): void {
    if (!this.#settleLoad) return
    clearTimeout(this.#settleLoad.timer)
    this.#settleLoad.reject(error)
    this.#settleLoad = null
    this.#kill()
  }

  #loadTimedOut(): void {
    this.#loadFailed(loadTimeoutError(this.#options.engineId, this.#options.loadTimeoutMs))
  }

  #requestTimedOut(timeoutMs: number): void {
    const pending = this.#pending
    if (!pending) return
    this.#settle(pending.id, (p) => p.reject(timeoutError(this.#options.engineId, timeoutMs)))
    this.#kill()
  }

  #settle(id: number, settle: (pending: Pending) => void): void {
    const pending = this.#pending
    if (!pending || pending.id !== id) return
    this.#pending = null
    clearTimeout(pending.timer)
    if (pending.abandoned) clearTimeout(pending.abandoned)
    pending.signal?.removeEventListener('abort', pending.onAbort)
    if (this.#status === 'busy') this.#status = 'idle'
    settle(pending)
  }

  /**
   * The process has ended. Its last messages and output may still be in the pipes ('close' comes once they
   * are read): they say whether it had started its request and whether V8 ran out of heap, so the request is
   * settled after them.
   */
  #onExit(how: string, drain: boolean): void {
    if (this.#ended !== null) return
    this.#ended = how
    const { engineId, logger } = this.#options
    if (!this.#stopping && this.#status !== 'dead') {
      logger.warn({ engine: engineId, pid: this.#child.pid, exit: how }, 'engine host ended unexpectedly')
    }
    this.#status = 'dead'
    this.#memoryWatch?.stop()
    this.#audio.close()
    if (!drain) {
      this.#settleExit()
      return
    }
    let settled = false
    const settle = () => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      this.#settleExit()
    }
    const timer = setTimeout(settle, drainWaitMs)
    this.#child.once('close', settle)
  }

  #settleExit(): void {
    if (this.#settleLoad) this.#loadFailed(this.#deathError('load'))
    const pending = this.#pending
    if (pending) {
      const failure = this.#deathError('transcribe')
      this.#settle(pending.id, (p) =>
        p.reject(p.started || this.#stopping || this.#overMemory ? failure : new NotStartedError(failure)),
      )
    }
    if (this.#streams.size > 0) {
      const failure = this.#deathError('transcribe')
      // A stream the host never opened may run on a new host, as a request it never started.
      const expected = this.#stopping || this.#overMemory || this.#stoppedFor
      this.#failStreams(failure, expected ? failure : new NotStartedError(failure))
    }
    this.#options.onExit(this)
    this.#resolveExited()
  }

  /** Why the host is gone, for a load or request it did not finish. */
  #deathError(during: 'load' | 'transcribe'): DictumError {
    const { engineId, memoryLimitMb } = this.#options
    if (this.#stopping) return closedError(engineId)
    if (this.#stoppedFor) return this.#stoppedFor
    if (this.#overMemory) return memoryLimitError(engineId, memoryLimitMb, during)
    return crashError(engineId, this.#ended ?? 'killed', during)
  }

  /** For a request given to a host that is already gone: it never started, so it may run elsewhere. */
  #deadError(): Error {
    const failure = this.#deathError('transcribe')
    return this.#stopping ? failure : new NotStartedError(failure)
  }

  #kill(): void {
    this.#status = 'dead'
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGKILL')
  }

  #send(message: ParentMessage): void {
    if (!this.#child.connected) return
    this.#child.send(message, (error) => {
      if (error)
        this.#options.logger.debug({ engine: this.#options.engineId, err: error }, 'engine host send failed')
    })
  }
}

function needsTsx(...files: string[]): boolean {
  return files.some((file) => /\.[cm]?tsx?$/.test(file))
}
