/**
 * One Wyoming client connection: events are read in order and handled one at a time (reading pauses while
 * a session opens or a transcript is being finished, so a fast client cannot pile up memory). `describe` →
 * `info`; `ping` → `pong`; `transcribe` names the model and language of the next audio stream;
 * `audio-start`, `audio-chunk`, `audio-stop` → the transcript (transcription.ts). Unknown event types are
 * ignored, as the protocol asks of peers. Misuse (audio-stop with no stream, a bad audio format, a model
 * that does not exist) is an `error` event (`{text, code}`) and the connection goes on; a malformed or
 * over-long event is an `error` event and the connection is closed, as is one that receives nothing for
 * `realtime.idleTimeoutMs` or no audio for `wyoming.idleTimeoutMs` (pings and describes do not keep a
 * connection). What is written to a client and not yet taken by it is bounded: reading pauses while
 * the socket's buffer is full (a client that does not read its answers is read no further), and a
 * connection with more than {@link MAX_UNREAD_BYTES} unread is closed. Whatever a client sends, only its own
 * connection is affected.
 */

import type { Socket } from 'node:net'
import { type DictumError, errors, isDictumError } from '../errors/catalogue.ts'
import type { ConfigStore } from '../kernel/config-store.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import type { EngineRegistry } from '../kernel/registry.ts'
import { liveErrors } from '../live/errors.ts'
import type { LiveService } from '../live/types.ts'
import type { ModelManager } from '../models/manager.ts'
import { chooseModel } from '../models/model-choice.ts'
import { EventReader, encodeEvent, FrameError, type WyomingEvent } from './framing.ts'
import { describeInfo } from './info.ts'
import { audioFormat, LIVE_RATE } from './pcm.ts'
import { noAudioStream, WyomingTranscription } from './transcription.ts'

export interface ConnectionDeps {
  live: LiveService
  engines: EngineRegistry
  models: ModelManager
  configStore: ConfigStore
  logger: PluginLogger
  version: string
}

/** Where the live sessions of Wyoming streams are recorded in history (when `history.enabled`). */
export const HISTORY_APP_NAME = 'wyoming'

/**
 * Events written to a client and not yet taken by it, past which the connection is closed: reading stops
 * well before (at the socket's high-water mark), so only events the client did not ask for (transcript
 * chunks of a stream in progress) reach this.
 */
export const MAX_UNREAD_BYTES = 1_048_576

export class WyomingConnection {
  readonly #socket: Socket
  readonly #deps: ConnectionDeps
  readonly #reader: EventReader
  /** From the last `transcribe`: for the next audio stream. */
  #request: { name?: string; language?: string } = {}
  /** The audio stream being received; 'refused' when its session could not open (its audio is dropped). */
  #stream: WyomingTranscription | 'refused' | null = null
  #reading = false
  /** True while an event is being handled (reading paused): the client is waiting for us. */
  #handling = false
  #closed = false
  /** Closes a connection that receives no audio for `wyoming.idleTimeoutMs`; stopped while a transcript is made. */
  #idleTimer: NodeJS.Timeout | null = null
  /** `realtime.idleTimeoutMs`: the longest a client may send nothing, except while it waits for a transcript. */
  readonly #silenceMs: number

  constructor(socket: Socket, deps: ConnectionDeps) {
    this.#socket = socket
    this.#deps = deps
    const { maxFrameBytes, idleTimeoutMs } = deps.configStore.current.realtime
    this.#reader = new EventReader(maxFrameBytes)
    socket.setNoDelay(true)
    this.#silenceMs = idleTimeoutMs
    socket.setTimeout(idleTimeoutMs)
    socket.on('timeout', () =>
      this.#end(liveErrors.SESSION_IDLE_TIMEOUT(`nothing was received for ${idleTimeoutMs} ms.`)),
    )
    socket.on('data', (chunk: Buffer) => {
      this.#reader.push(chunk)
      void this.#read()
    })
    socket.on('error', () => {}) // a reset by the client: 'close' follows
    socket.on('close', () => {
      this.#closed = true
      this.#dropStream()
      this.#stopIdleTimer()
      this.#reader.clear()
    })
    this.#startIdleTimer()
  }

  /** Bytes written to the client and not yet taken by it. */
  get unreadBytes(): number {
    return this.#socket.writableLength
  }

  /** True while an audio stream is open (shutdown lets it finish first). */
  get busy(): boolean {
    return this.#stream !== null
  }

  /** Closes the connection now (shutdown); an open stream is cancelled. */
  destroy(): void {
    this.#socket.destroy()
  }

  /** Ends the connection once it is between streams. */
  endWhenIdle(): void {
    if (!this.busy) this.#socket.end()
  }

  async #read(): Promise<void> {
    if (this.#reading) return
    this.#reading = true
    try {
      while (!this.#closed) {
        let event: WyomingEvent | null
        try {
          event = this.#reader.next()
        } catch (err) {
          if (!(err instanceof FrameError)) throw err
          this.#end(errors.INVALID_REQUEST(`malformed Wyoming event: ${err.message}`))
          return
        }
        if (event === null) return
        const handling = this.#handle(event)
        if (handling) {
          // The client waits for us (an engine loading, a transcript being made): it is not idle meanwhile.
          this.#socket.pause()
          this.#socket.setTimeout(0)
          this.#handling = true
          await handling.catch((err: unknown) => this.#refuse(err))
          this.#handling = false
          if (!this.#closed) {
            this.#socket.setTimeout(this.#silenceMs)
            this.#socket.resume()
          }
        }
        if (this.#socket.writableNeedDrain) await this.#drained()
      }
    } finally {
      this.#reading = false
    }
  }

  /** Reading waits while the client has not taken what was written to it. */
  async #drained(): Promise<void> {
    this.#socket.pause()
    await new Promise<void>((resolve) => {
      const done = () => {
        this.#socket.off('drain', done)
        this.#socket.off('close', done)
        resolve()
      }
      this.#socket.on('drain', done)
      this.#socket.on('close', done)
    })
    if (!this.#closed) this.#socket.resume()
  }

  #startIdleTimer(): void {
    this.#stopIdleTimer()
    const { idleTimeoutMs } = this.#deps.configStore.current.wyoming
    this.#idleTimer = setTimeout(() => {
      // An engine still loading for the stream's first audio is not the client's idleness.
      if (this.#handling) this.#startIdleTimer()
      else this.#end(liveErrors.SESSION_IDLE_TIMEOUT(`no audio was received for ${idleTimeoutMs} ms.`))
    }, idleTimeoutMs)
    this.#idleTimer.unref()
  }

  #stopIdleTimer(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer)
    this.#idleTimer = null
  }

  /** Handles one event; returns a promise when the next must wait for it. */
  #handle(event: WyomingEvent): Promise<void> | undefined {
    try {
      switch (event.type) {
        case 'describe':
          return this.#describe()
        case 'ping':
          this.#send('pong', typeof event.data.text === 'string' ? { text: event.data.text } : {})
          return
        case 'transcribe':
          this.#request = {
            ...(typeof event.data.name === 'string' && event.data.name !== ''
              ? { name: event.data.name }
              : {}),
            ...(typeof event.data.language === 'string' && event.data.language !== ''
              ? { language: event.data.language }
              : {}),
          }
          return
        case 'audio-start':
          this.#startIdleTimer()
          this.#dropStream()
          return this.#open(audioFormat(event.data))
        case 'audio-chunk':
          this.#startIdleTimer()
          return this.#chunk(event)
        case 'audio-stop':
          return this.#stop()
        default:
          this.#deps.logger.debug({ type: event.type }, 'wyoming: event ignored')
          return
      }
    } catch (err) {
      this.#refuse(err)
      return
    }
  }

  async #describe(): Promise<void> {
    const { engines, models, version } = this.#deps
    this.#send('info', await describeInfo(engines, models, version))
  }

  async #open(format: ReturnType<typeof audioFormat>): Promise<void> {
    const { live, engines, models } = this.#deps
    const { name, language } = this.#request
    const stream = new WyomingTranscription(format, language, (type, data) => this.#send(type, data))
    this.#stream = 'refused'
    const choice = await chooseModel(name, engines, models)
    const session = await live.open(
      {
        ...choice,
        ...(language ? { language } : {}),
        turnDetection: null,
        inputSampleRate: LIVE_RATE,
        history: { appName: HISTORY_APP_NAME },
      },
      stream.onEvent,
    )
    if (this.#closed || this.#stream !== 'refused') {
      void session.close({ cancel: true })
      return
    }
    stream.attach(session)
    this.#stream = stream
  }

  #chunk(event: WyomingEvent): Promise<void> | undefined {
    const format = audioFormat(event.data)
    // A stream may start with its first chunk: the chunk carries the format.
    if (this.#stream === null) {
      return this.#open(format).then(() => this.#chunk(event))
    }
    if (this.#stream !== 'refused' && event.payload) this.#stream.audio(format, event.payload)
    return
  }

  async #stop(): Promise<void> {
    const stream = this.#stream
    this.#stream = null
    if (stream === null) throw noAudioStream('audio-stop')
    // The transcript may take a while (a busy engine): the connection is not idle meanwhile.
    this.#stopIdleTimer()
    try {
      if (stream !== 'refused') await stream.finish()
    } finally {
      if (!this.#closed) this.#startIdleTimer()
    }
  }

  #dropStream(): void {
    if (this.#stream instanceof WyomingTranscription) this.#stream.cancel()
    this.#stream = null
  }

  /** An error the connection survives. */
  #refuse(err: unknown): void {
    const error = asError(err)
    if (error.statusCode >= 500 && !isDictumError(err)) {
      this.#deps.logger.error({ error: (err as Error).message }, 'wyoming: event failed')
    }
    this.#send('error', { text: error.message, code: error.code })
  }

  /** An error that ends the connection. */
  #end(error: DictumError): void {
    if (this.#closed) return
    this.#send('error', { text: error.message, code: error.code })
    this.#closed = true
    this.#dropStream()
    this.#socket.end()
    // A client that does not read its error is not waited for.
    setTimeout(() => this.#socket.destroy(), 1000).unref()
  }

  #send(type: string, data?: Record<string, unknown>): void {
    if (this.#socket.destroyed || this.#socket.writableEnded) return
    this.#socket.write(encodeEvent(type, data))
    if (this.#socket.writableLength > MAX_UNREAD_BYTES) {
      // A client this far behind is not reading: waiting for it would hold its events in memory.
      this.#deps.logger.debug(
        { unreadBytes: this.#socket.writableLength },
        'wyoming: the client does not read its events; connection closed',
      )
      this.#closed = true
      this.#dropStream()
      this.#socket.destroy()
    }
  }
}

function asError(err: unknown): DictumError {
  return isDictumError(err) ? err : errors.INTERNAL(undefined, { cause: err })
}
