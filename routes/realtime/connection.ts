/**
 * One `/v1/realtime` WebSocket: OpenAI Realtime transcription events in, a {@link LiveSession} driven by
 * them, its {@link LiveEvent}s out as OpenAI's server events. Client events are handled one after another in
 * arrival order (opening or reopening the live session is asynchronous; events wait behind it). A frame that
 * cannot be applied gets an `error` event and the session goes on; the session ends (with a close code) when
 * the live session cannot go on (its fatal `error`: idle for `realtime.idleTimeoutMs`, audio faster than the
 * engine, engine gone), or when the client closes.
 *
 * Bounds (issue 28): frames over 64 KB are parsed off the event loop (the body worker of
 * http/json-body), and the session processes audio a slice at a time; frames waiting to be
 * applied count against `realtime.maxQueuedAudioSeconds` (past it: `audio_too_fast`, close 1008). Server
 * events queued for a client that does not read them are bounded by `realtime.maxSendQueueBytes`: past it
 * the connection is dropped. A client that keeps sending frames that are not events is closed after
 * {@link MAX_INVALID_FRAMES} of them (1008).
 */

import { randomBytes } from 'node:crypto'
import type { WebSocket } from 'ws'
import type { DictumConfig } from '../../config/schema.ts'
import { type DictumError, errors, isDictumError } from '../../errors/catalogue.ts'
import { parseBody, parseOffThread } from '../../http/json-body/parser.ts'
import { liveErrors } from '../../live/errors.ts'
import type { LiveEvent, LiveService, LiveSession } from '../../live/types.ts'
import type { ModelChoice } from '../../models/model-choice.ts'
import { toLogprobs } from '../../transcription/logprobs.ts'
import { languageAmong } from '../../transcription/service.ts'
import { openaiErrors } from '../openai/error-codes.ts'
import {
  type ClientCommand,
  DEFAULT_SERVER_VAD,
  type EventShape,
  type ParsedFrame,
  readClientEvent,
  type SessionPatch,
} from './client-events.ts'
import { realtimeErrors } from './error-codes.ts'
import {
  errorEvent,
  errorObject,
  type ServerEvent,
  type SessionSettings,
  serverEvent,
  sessionEvent,
} from './server-events.ts'

/** WebSocket close codes (RFC 6455 §7.4.1) this endpoint uses; 1009 (frame too large) is sent by `ws` itself. */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  policy: 1008,
  internalError: 1011,
  tryAgainLater: 1013,
} as const

/** Frames that are not events (binary, not JSON, not a known event) a connection may send before it is closed. */
export const MAX_INVALID_FRAMES = 100

/** Frames up to this size are parsed at once; larger ones in the body worker (tens of ms a megabyte). */
const INLINE_FRAME_BYTES = 64 * 1024

/** Realtime events nest five deep (`session.audio.input.turn_detection`); deeper frames are refused unparsed. */
const FRAME_PARSE = { maxDepth: 8, base64Fields: ['audio'] } as const

export interface ConnectionDeps {
  live: LiveService
  /** Maps a transcription model name to an engine (models/model-choice.ts); throws a catalogue error. */
  chooseModel: (name: string | undefined) => Promise<ModelChoice>
  /** The engine that runs when no model is named (for the session object). */
  selectedEngine: () => string
  /** The current `realtime` config (its limits apply from the next frame). */
  limits: () => Readonly<DictumConfig['realtime']>
  /** Ids of the engines whose results carry confidences (for the error that sends a client to them). */
  enginesWithLogprobs: () => Promise<string[]>
  log: { debug(obj: object, msg: string): void; warn(obj: object, msg: string): void }
}

export interface ConnectionOptions {
  shape: EventShape
  /** `model` from the query string: the session's model until `session.update` names another. */
  model: string | undefined
  /** History app name of the completed items. */
  appName: string
  /** A dictation session (`?dictation=true`): items go through the editing stage. */
  dictation: boolean
}

export class RealtimeConnection {
  readonly #socket: WebSocket
  readonly #deps: ConnectionDeps
  readonly #options: ConnectionOptions
  readonly #settings: SessionSettings
  /** The engine the current live session runs (what `#settings.model` maps to). */
  #choice: ModelChoice = {}
  #session: LiveSession | null = null
  /** Client events are applied one after another, behind (re)opening the live session. */
  #queue: Promise<void>
  /** Bytes of frames received and not yet applied (parsing, or waiting behind the session's opening). */
  #queuedBytes = 0
  #invalidFrames = 0
  #closed = false

  constructor(socket: WebSocket, deps: ConnectionDeps, options: ConnectionOptions) {
    this.#socket = socket
    this.#deps = deps
    this.#options = options
    this.#settings = {
      id: `sess_${randomBytes(10).toString('hex')}`,
      model: options.model ?? deps.selectedEngine(),
      language: undefined,
      languages: undefined,
      prompt: undefined,
      keywords: [],
      keywordsApplied: false,
      logprobs: false,
      turnDetection: { ...DEFAULT_SERVER_VAD },
      inputSampleRate: 24000,
    }
    socket.on('message', (data, isBinary) => this.#onFrame(data as Buffer, isBinary))
    socket.on('close', () => this.#end())
    // Opened at once (not at the first audio), so the session counts against realtime.maxSessions from
    // the start and the engine loads while the client configures the session.
    this.#queue = this.#start()
  }

  async #start(): Promise<void> {
    try {
      this.#choice = await this.#deps.chooseModel(this.#options.model)
    } catch (err) {
      this.#fail(asDictumError(err), CLOSE.policy, 'unknown model')
      return
    }
    // The default turn detection needs the VAD; without one (vad.enabled false, no model) the session opens
    // with turn_detection null, which session.created shows: the client then commits each item.
    if (!(await this.#open({ withoutVadIfNone: true }))) return
    this.#sendSession(this.#options.shape, 'created')
  }

  /** Opens the live session with the current settings; on refusal sends the error and closes. */
  async #open({ withoutVadIfNone = false } = {}): Promise<boolean> {
    const s = this.#settings
    try {
      const session = await this.#deps.live.open(
        {
          ...this.#choice,
          ...(s.language ? { language: s.language } : {}),
          ...(s.languages ? { languages: s.languages } : {}),
          ...(s.prompt ? { prompt: s.prompt } : {}),
          ...(s.keywords.length > 0 ? { keywords: s.keywords } : {}),
          turnDetection: s.turnDetection,
          inputSampleRate: s.inputSampleRate,
          history: { appName: this.#options.appName },
          commands: this.#options.dictation,
        },
        (event) => this.#onLiveEvent(event),
      )
      if (this.#closed) {
        await session.close({ cancel: true })
        return false
      }
      this.#session = session
      return true
    } catch (err) {
      const error = asDictumError(err)
      if (withoutVadIfNone && error.code === 'MODEL_NOT_INSTALLED' && s.turnDetection !== null) {
        this.#settings.turnDetection = null
        return this.#open()
      }
      this.#fail(error, ...closeFor(error))
      return false
    }
  }

  #onFrame(data: Buffer, isBinary: boolean): void {
    if (this.#closed) return
    if (isBinary) {
      this.#protocolError('invalid_frame', 'binary frames are not events; send JSON text frames.', null, null)
      return
    }
    if (data.length <= INLINE_FRAME_BYTES) {
      const command = this.#read(parseFrame(data))
      if (command) this.#enqueue(data.length, () => this.#apply(command))
      return
    }
    const bytes = data.length
    // ws is done with a message it has emitted: its bytes go to the worker without a copy
    const parsed = parseOffThread(data, FRAME_PARSE, { handOver: true }).then(({ parsed, decoded }) =>
      frameOf(parsed, decoded),
    )
    parsed.catch(() => {})
    this.#enqueue(bytes, async () => {
      const command = this.#read(await parsed)
      if (command) await this.#apply(command)
    })
  }

  /** The frame's command, or null when it is not one (its error is sent). */
  #read(frame: ParsedFrame): ClientCommand | null {
    const command = readClientEvent(frame)
    if (!('problem' in command)) return command
    this.#protocolError(command.code, command.detail, command.param, command.eventId)
    return null
  }

  /** Applies `step` in arrival order; a client whose frames pile up past the bound is closed. */
  #enqueue(bytes: number, step: () => Promise<void>): void {
    this.#queuedBytes += bytes
    const { maxQueuedAudioSeconds } = this.#deps.limits()
    // base64 of PCM16 at the session's rate: 4 characters carry 3 bytes
    const limit = Math.ceil(((maxQueuedAudioSeconds * this.#settings.inputSampleRate * 2) / 3) * 4)
    if (this.#queuedBytes > limit) {
      const error = liveErrors.AUDIO_TOO_FAST(
        `more than ${maxQueuedAudioSeconds} s of audio wait to be processed (realtime.maxQueuedAudioSeconds); send audio at most a little faster than real time. The session is closed.`,
      )
      this.#fail(error, ...closeFor(error))
      return
    }
    this.#queue = this.#queue
      .then(() => {
        this.#queuedBytes -= bytes
        return this.#closed ? undefined : step()
      })
      .catch((err) => this.#crash(err))
  }

  async #apply(command: ClientCommand): Promise<void> {
    if (this.#closed) return
    const session = this.#session
    switch (command.type) {
      case 'update':
        return this.#update(command)
      case 'append':
        session?.append(command.audio)
        return
      case 'commit':
        session?.commit()
        return
      case 'clear':
        session?.clear()
        this.#send(serverEvent('input_audio_buffer.cleared'))
        return
    }
  }

  async #update(command: Extract<ClientCommand, { type: 'update' }>): Promise<void> {
    const { patch } = command
    const s = this.#settings
    let choice = this.#choice
    if (patch.model !== undefined && patch.model !== s.model) {
      try {
        choice = await this.#deps.chooseModel(patch.model)
      } catch (err) {
        this.#send(errorEvent(errorObject(asDictumError(err), command.eventId)))
        return
      }
    }
    const reopen =
      choice.engineId !== this.#choice.engineId ||
      choice.model !== this.#choice.model ||
      (patch.inputSampleRate !== undefined && patch.inputSampleRate !== s.inputSampleRate)
    const logprobs = patch.logprobs ?? s.logprobs
    // refused whole, as any invalid update: nothing of it is applied (a new engine checks at its open)
    const refusal = reopen || !this.#session ? null : await this.#refusal(patch, logprobs, this.#session)
    if (refusal) {
      this.#send(errorEvent(errorObject(refusal, command.eventId)))
      return
    }
    if (patch.model !== undefined) s.model = patch.model
    if ('language' in patch) s.language = patch.language
    if ('languages' in patch) s.languages = patch.languages
    else if ('language' in patch) s.languages = undefined
    if ('prompt' in patch) s.prompt = patch.prompt
    if (patch.keywords !== undefined) s.keywords = patch.keywords
    s.logprobs = logprobs
    if (patch.turnDetection !== undefined) s.turnDetection = patch.turnDetection
    if (patch.inputSampleRate !== undefined) s.inputSampleRate = patch.inputSampleRate
    this.#choice = choice
    if (reopen) {
      // Engine and sample rate are fixed for a live session: the open item is completed, a new one opens.
      const old = this.#session
      this.#session = null
      await old?.close()
      if (!(await this.#open())) return
      const opened = this.#session as LiveSession | null
      if (opened && s.logprobs && !opened.engine.capabilities.logprobs) {
        // the new engine has no confidences: said, and logprobs are off (session.updated shows it)
        s.logprobs = false
        this.#send(errorEvent(errorObject(await this.#logprobsRefused(opened), command.eventId)))
      }
    } else {
      this.#session?.update({
        turnDetection: s.turnDetection,
        language: s.language,
        languages: s.languages,
        prompt: s.prompt,
        keywords: s.keywords,
      })
    }
    this.#sendSession(command.shape, 'updated')
  }

  /** What the live session's engine cannot do of an update that keeps it: languages it does not transcribe, logprobs. */
  async #refusal(patch: SessionPatch, logprobs: boolean, session: LiveSession): Promise<DictumError | null> {
    try {
      if (patch.languages) languageAmong(patch.languages, session.engine)
    } catch (err) {
      return asDictumError(err)
    }
    return logprobs && !session.engine.capabilities.logprobs ? this.#logprobsRefused(session) : null
  }

  /** `include` logprobs on an engine whose results carry no confidences: the error names those that have them. */
  async #logprobsRefused(session: LiveSession): Promise<DictumError> {
    const able = await this.#deps.enginesWithLogprobs()
    return openaiErrors.LOGPROBS_UNSUPPORTED(
      `${session.engine.displayName} gives no token or word confidences. Engines that do: ${able.length > 0 ? able.join(', ') : 'none is configured'}.`,
      { extra: { param: 'include' } },
    )
  }

  #sendSession(shape: EventShape, what: 'created' | 'updated'): void {
    this.#settings.keywordsApplied = this.#session?.engine.capabilities.customWords === true
    this.#send(sessionEvent(shape, what, this.#settings))
  }

  #onLiveEvent(event: LiveEvent): void {
    switch (event.type) {
      case 'speech_started':
        this.#send(
          serverEvent('input_audio_buffer.speech_started', {
            item_id: event.itemId,
            audio_start_ms: event.audioStartMs,
          }),
        )
        return
      case 'speech_stopped':
        this.#send(
          serverEvent('input_audio_buffer.speech_stopped', {
            item_id: event.itemId,
            audio_end_ms: event.audioEndMs,
          }),
        )
        return
      case 'committed':
        this.#send(
          serverEvent('input_audio_buffer.committed', {
            item_id: event.itemId,
            previous_item_id: event.previousItemId,
          }),
        )
        return
      case 'delta':
        this.#send(
          serverEvent('conversation.item.input_audio_transcription.delta', {
            item_id: event.itemId,
            content_index: 0,
            delta: event.delta,
          }),
        )
        return
      case 'partial':
        // OpenAI's deltas are append-only; a revising hypothesis has no OpenAI event.
        return
      case 'completed':
        this.#send(
          serverEvent('conversation.item.input_audio_transcription.completed', {
            item_id: event.itemId,
            content_index: 0,
            transcript: event.transcript,
            // dictum's extension: the items a dictation session's "scratch that" takes back
            ...(event.removes.length > 0 ? { removed_item_ids: event.removes } : {}),
            ...(this.#settings.logprobs ? { logprobs: event.tokens && toLogprobs(event.tokens) } : {}),
            usage: {
              type: 'duration',
              seconds: Math.round((event.endSeconds - event.startSeconds) * 1000) / 1000,
            },
          }),
        )
        return
      case 'failed':
        this.#send(
          serverEvent('conversation.item.input_audio_transcription.failed', {
            item_id: event.itemId,
            content_index: 0,
            error: errorObject(event.error),
          }),
        )
        return
      case 'error':
        // A refused call (an empty commit, an odd byte count) is an error the session survives.
        if (!event.fatal) this.#send(errorEvent(errorObject(event.error)))
        else this.#fail(event.error, ...closeFor(event.error))
        return
    }
  }

  #protocolError(code: string, detail: string, param: string | null, eventId: string | null): void {
    const { message } = realtimeErrors.REALTIME_EVENT_INVALID(detail)
    this.#send(errorEvent({ type: 'invalid_request_error', code, message, param, event_id: eventId }))
    if (++this.#invalidFrames > MAX_INVALID_FRAMES) {
      this.#deps.log.debug(
        { invalidFrames: this.#invalidFrames },
        'realtime client keeps sending invalid frames',
      )
      this.#close(CLOSE.policy, 'too many invalid frames')
    }
  }

  /** Sends the error, then closes the socket with `code`. */
  #fail(error: DictumError, code: number, reason: string): void {
    if (this.#closed) return
    this.#send(errorEvent(errorObject(error)))
    this.#close(code, reason)
  }

  #crash(err: unknown): void {
    this.#deps.log.warn({ err }, 'realtime session failed')
    this.#fail(errors.INTERNAL(), CLOSE.internalError, 'internal error')
  }

  #send(event: ServerEvent): void {
    if (this.#socket.readyState !== this.#socket.OPEN) return
    const text = JSON.stringify(event)
    const { maxSendQueueBytes } = this.#deps.limits()
    if (this.#socket.bufferedAmount + Buffer.byteLength(text) > maxSendQueueBytes) {
      // A client that does not read: what is queued for it is dropped with the connection (a close frame
      // would only queue behind it).
      this.#deps.log.debug(
        { queuedBytes: this.#socket.bufferedAmount },
        'realtime client does not read its events (realtime.maxSendQueueBytes): connection dropped',
      )
      this.#end()
      this.#socket.terminate()
      return
    }
    this.#socket.send(text)
  }

  /** Closes the socket (the `close` event then ends the session). */
  #close(code: number, reason: string): void {
    this.#end()
    if (this.#socket.readyState === this.#socket.OPEN) this.#socket.close(code, reason)
  }

  /** Server shutdown: close with 1001 (the open item is cancelled). */
  shutdown(): void {
    this.#close(CLOSE.goingAway, 'server shutting down')
  }

  /** Releases the live session (the open item is cancelled: its client is gone). */
  #end(): void {
    if (this.#closed) return
    this.#closed = true
    const session = this.#session
    this.#session = null
    session
      ?.close({ cancel: true })
      .catch((err) => this.#deps.log.debug({ err }, 'live session close failed'))
  }
}

/** The close code and reason of an error that ends the session. */
function closeFor(error: DictumError): [number, string] {
  switch (error.code) {
    case 'TOO_MANY_SESSIONS':
      return [CLOSE.tryAgainLater, 'too many sessions']
    case 'SESSION_IDLE_TIMEOUT':
      return [CLOSE.normal, 'idle timeout']
    case 'INVALID_REQUEST':
      return [CLOSE.policy, 'invalid request']
    case 'SESSION_BACKLOG':
      return [CLOSE.policy, 'audio faster than the engine']
    case 'AUDIO_TOO_FAST':
      return [CLOSE.policy, 'audio too fast']
    default:
      return [CLOSE.internalError, 'session failed']
  }
}

/** A frame up to INLINE_FRAME_BYTES, parsed here as the body worker parses larger ones. */
function parseFrame(data: Buffer): ParsedFrame {
  const { parsed, decoded } = parseBody(data, FRAME_PARSE)
  return frameOf(parsed, decoded)
}

function frameOf(
  parsed: ReturnType<typeof parseBody>['parsed'],
  decoded: Record<string, Uint8Array | null>,
): ParsedFrame {
  return parsed.ok ? { ok: true, value: parsed.value, audio: decoded.audio } : { ok: false }
}

function asDictumError(err: unknown): DictumError {
  return isDictumError(err) ? err : errors.INTERNAL('', { cause: err })
}
