/**
 * One Wyoming client connection: events are read in order and handled one at a time (reading pauses while
 * a session opens or a transcript is being finished, so a fast client cannot pile up memory). `describe` →
 * `info`; `ping` → `pong`; `transcribe` names the model and language of the next audio stream;
 * `audio-start`, `audio-chunk`, `audio-stop` → the transcript (transcription.ts). Unknown event types are
 * ignored, as the protocol asks of peers. Misuse (audio-stop with no stream, a bad audio format, a model
 * that does not exist) is an `error` event (`{text, code}`) and the connection goes on; a malformed or
 * over-long event is an `error` event and the connection is closed, as is one idle for
 * `realtime.idleTimeoutMs`. Whatever a client sends, only its own connection is affected.
 */
import type { Socket } from 'node:net'
import type { ConfigStore } from '../kernel/config-store.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import { type DictumError, errors, isDictumError } from '../kernel/errors.ts'
import type { EngineRegistry } from '../kernel/registry.ts'
import type { LiveService } from '../live/types.ts'
import type { ModelManager } from '../models/manager.ts'
import { chooseModel } from '../plugins/openai/model-choice.ts'
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

export class WyomingConnection {
  readonly #socket: Socket
  readonly #deps: ConnectionDeps
  readonly #reader: EventReader
  /** From the last `transcribe`: for the next audio stream. */
  #request: { name?: string; language?: string } = {}
  /** The audio stream being received; 'refused' when its session could not open (its audio is dropped). */
  #stream: WyomingTranscription | 'refused' | null = null
  #reading = false
  #closed = false

  constructor(socket: Socket, deps: ConnectionDeps) {
    this.#socket = socket
    this.#deps = deps
    const { maxFrameBytes, idleTimeoutMs } = deps.configStore.current.realtime
    this.#reader = new EventReader(maxFrameBytes)
    socket.setNoDelay(true)
    socket.setTimeout(idleTimeoutMs, () =>
      this.#end(errors.SESSION_IDLE_TIMEOUT(`nothing was received for ${idleTimeoutMs} ms.`)),
    )
    socket.on('data', (chunk: Buffer) => {
      this.#reader.push(chunk)
      void this.#read()
    })
    socket.on('error', () => {}) // a reset by the client: 'close' follows
    socket.on('close', () => {
      this.#closed = true
      this.#dropStream()
    })
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
          this.#socket.pause()
          await handling.catch((err: unknown) => this.#refuse(err))
          if (!this.#closed) this.#socket.resume()
        }
      }
    } finally {
      this.#reading = false
    }
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
          this.#dropStream()
          return this.#open(audioFormat(event.data))
        case 'audio-chunk':
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
    if (stream === 'refused') return
    await stream.finish()
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
  }
}

function asError(err: unknown): DictumError {
  return isDictumError(err) ? err : errors.INTERNAL(undefined, { cause: err })
}
