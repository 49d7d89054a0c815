import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { EngineTranscribeRequest, EngineTranscribeResult, PluginLogger } from '../contracts/engine.ts'
import type { DictumError } from '../errors.ts'
import { AudioHandoff } from './audio-handoff.ts'
import {
  crashError,
  describeExit,
  loadFailure,
  loadTimeoutError,
  timeoutError,
  transcribeFailure,
} from './engine-errors.ts'
import { OutputLines } from './output-lines.ts'
import type { HostMessage, ParentMessage } from './protocol.ts'
import { abortReason, closedError } from './slot-queue.ts'
import type { EngineRunnerContext } from './types.ts'

export interface HostOptions {
  engineId: string
  moduleSource: string
  context: EngineRunnerContext
  loadTimeoutMs: number
  logger: PluginLogger
  /** Where large pieces of audio are handed over (see audio-handoff.ts); null sends them through the pipe. */
  audioDir: string | null
  /** Called once when the process has exited (for whatever reason). */
  onExit: (host: EngineHost) => void
}

interface Pending {
  id: number
  resolve: (result: EngineTranscribeResult) => void
  reject: (error: unknown) => void
  timer: NodeJS.Timeout
  signal: AbortSignal | undefined
  onAbort: () => void
}

export type HostStatus = 'loading' | 'idle' | 'busy' | 'dead'

// The host next to this module: host.ts from the sources, host.js in the compiled package.
const hostFile = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? './host.ts' : './host.js', import.meta.url),
)
const closeGraceMs = 2000

/**
 * The API-process side of one engine host: starts the child, loads the engine in it, sends one
 * transcription at a time, turns every way the child can fail into a catalogue error, and stops it.
 */
export class EngineHost {
  readonly ready: Promise<void>
  readonly exited: Promise<void>
  /** Set by the pool while a request holds this host (including while it waits for the load). */
  reserved = false
  readonly #options: HostOptions
  readonly #child: ChildProcess
  readonly #audio: AudioHandoff
  #status: HostStatus = 'loading'
  #stopping = false
  #nextId = 1
  #pending: Pending | null = null
  #settleLoad: { resolve: () => void; reject: (error: DictumError) => void; timer: NodeJS.Timeout } | null =
    null

  constructor(options: HostOptions) {
    this.#options = options
    this.#audio = new AudioHandoff(options.audioDir)
    this.#child = fork(hostFile, [], {
      execArgv: needsTsx(hostFile, options.moduleSource) ? ['--import', import.meta.resolve('tsx')] : [],
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
      this.#child.once('exit', () => resolve())
      // A child that never started emits 'error' and no 'exit'.
      this.#child.once('error', () => this.#child.pid === undefined && resolve())
    })
    this.#wire()
  }

  get pid(): number | undefined {
    return this.#child.pid
  }

  get status(): HostStatus {
    return this.#status
  }

  transcribe(
    request: EngineTranscribeRequest,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<EngineTranscribeResult> {
    if (this.#status !== 'idle') return Promise.reject(new Error(`engine host is ${this.#status}`))
    this.#status = 'busy'
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      const onAbort = () => this.#send({ type: 'abort', id })
      const timer = setTimeout(() => this.#requestTimedOut(timeoutMs), timeoutMs)
      const { samples, ...rest } = request
      this.#pending = { id, resolve, reject, timer, signal, onAbort }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#send({ type: 'transcribe', id, request: rest, audio: this.#audio.pack(samples) })
    })
  }

  /** Stops the host: politely when idle (the engine frees its model), at once when busy or loading. */
  async stop(): Promise<void> {
    if (!this.#stopping && this.#status !== 'dead') {
      this.#stopping = true
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
    this.#child.on('exit', (code, signal) => this.#onExit(describeExit(code, signal)))
    this.#child.on('error', (error) => {
      logger.error({ engine: engineId, pid, err: error }, 'engine host process error')
      if (this.#child.pid === undefined) this.#onExit(`not started: ${error.message}`)
      else this.#kill()
    })
    for (const stream of ['stdout', 'stderr'] as const) {
      const readable = this.#child[stream]
      if (readable) new OutputLines(readable, (line) => logger.info({ engine: engineId, pid, stream }, line))
    }
  }

  #onMessage(message: HostMessage): void {
    const { engineId, moduleSource, context } = this.#options
    if (message.type === 'hello') this.#send({ type: 'init', engineId, moduleSource, context })
    else if (message.type === 'ready') this.#loaded()
    else if (message.type === 'load-error') this.#loadFailed(loadFailure(engineId, message.error))
    else if (message.type === 'result') this.#settle(message.id, (p) => p.resolve(message.result))
    else if (message.type === 'error') {
      this.#settle(message.id, (p) =>
        p.reject(p.signal?.aborted ? abortReason(p.signal) : transcribeFailure(engineId, message.error)),
      )
    } else if (message.type === 'log') this.#forwardLog(message)
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
    pending.signal?.removeEventListener('abort', pending.onAbort)
    if (this.#status === 'busy') this.#status = 'idle'
    settle(pending)
  }

  #onExit(how: string): void {
    const { engineId, logger } = this.#options
    const wasStopping = this.#stopping
    if (!wasStopping && this.#status !== 'dead') {
      logger.warn({ engine: engineId, pid: this.#child.pid, exit: how }, 'engine host ended unexpectedly')
    }
    this.#status = 'dead'
    this.#audio.close()
    this.#loadFailed(wasStopping ? closedError(engineId) : crashError(engineId, how, 'load'))
    const pending = this.#pending
    if (pending) {
      this.#settle(pending.id, (p) =>
        p.reject(wasStopping ? closedError(engineId) : crashError(engineId, how, 'transcribe')),
      )
    }
    this.#options.onExit(this)
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
