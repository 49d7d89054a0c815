/**
 * The client events of an OpenAI Realtime transcription session, read and checked: the current (GA) shape
 * (`session.update` with `session.type: 'transcription'` and `audio.input`), the older beta shape
 * (`transcription_session.update` with `input_audio_format`, `input_audio_transcription`), and
 * `input_audio_buffer.append` / `.commit` / `.clear`. A frame that is not one of these, or has a field of the
 * wrong kind, gives a {@link ProtocolProblem} (sent back as an `error` event); nothing of it is applied.
 * Unknown fields are ignored, as OpenAI's own optional ones that change nothing here (`delay`,
 * `create_response`, `interrupt_response`, `idle_timeout_ms`) are; `noise_reduction` other than null is refused
 * (dictum has no denoiser: docs/realtime.md). The fields openai 7.x added are read in session-fields.ts.
 */
import { thresholdProblem } from '../../live/turn-detector.ts'
import type { ServerVad } from '../../live/types.ts'
import {
  Problem,
  type RealtimeTurnDetection,
  readInclude,
  readKeywords,
  readLanguages,
  readNoiseReduction,
  readSemanticVad,
} from './session-fields.ts'

/** What a `session.update` changes; absent keys stay as they are. */
export interface SessionPatch {
  /** The transcription model as the client named it (mapped to an engine by the connection). */
  model?: string
  language?: string | undefined
  /** OpenAI's `languages`: the audio is in one of these (a patch never holds both this and `language`). */
  languages?: string[] | undefined
  prompt?: string | undefined
  /** OpenAI's `keywords` (checked); `[]` clears them. */
  keywords?: string[]
  /** `include: ["item.input_audio_transcription.logprobs"]` (true) or `[]` / null (false). */
  logprobs?: boolean
  turnDetection?: RealtimeTurnDetection | null
  inputSampleRate?: 16000 | 24000
}

/** Which event shape the client speaks: the answer comes in the same one. */
export type EventShape = 'ga' | 'beta'

export type ClientCommand =
  | { type: 'update'; shape: EventShape; patch: SessionPatch; eventId: string | null }
  | { type: 'append'; audio: Uint8Array; eventId: string | null }
  | { type: 'commit'; eventId: string | null }
  | { type: 'clear'; eventId: string | null }

/** A frame that cannot be applied: OpenAI's error object fields. */
export interface ProtocolProblem {
  problem: true
  /** OpenAI-style code: `invalid_json`, `invalid_frame`, `missing_required_parameter`, `invalid_type`, … */
  code: string
  /** What is wrong, for the `Invalid realtime event: …` message. */
  detail: string
  param: string | null
  eventId: string | null
}

/** OpenAI's defaults for `server_vad`. */
export const DEFAULT_SERVER_VAD: ServerVad = {
  type: 'server_vad',
  threshold: 0.5,
  prefixPaddingMs: 300,
  silenceDurationMs: 500,
}

/** Event types of OpenAI's conversation sessions, which a transcription session does not take. */
const CONVERSATION_EVENTS = new Set([
  'conversation.item.create',
  'conversation.item.delete',
  'conversation.item.retrieve',
  'conversation.item.truncate',
  'response.create',
  'response.cancel',
  'output_audio_buffer.clear',
])

/** Longest `event_id` taken: it is quoted back in errors, so its length bounds what one event makes the server send. */
export const MAX_EVENT_ID_LENGTH = 512

/**
 * A frame as JSON, its `audio` string decoded while parsing (http/json-body's parseBody, which
 * parses large frames off the event loop): the bytes, null when not base64, undefined when not a string.
 */
export type ParsedFrame = { ok: false } | { ok: true; value: unknown; audio: Uint8Array | null | undefined }

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Reads one text frame. */
export function readClientEvent(frame: ParsedFrame): ClientCommand | ProtocolProblem {
  if (!frame.ok) return problem('invalid_json', 'the message is not valid JSON.', null, null)
  const event = frame.value
  if (!isObject(event)) return problem('invalid_json', 'the message must be a JSON object.', null, null)
  if (typeof event.event_id === 'string' && event.event_id.length > MAX_EVENT_ID_LENGTH) {
    return problem(
      'invalid_value',
      `event_id is longer than ${MAX_EVENT_ID_LENGTH} characters.`,
      'event_id',
      null,
    )
  }
  const eventId = typeof event.event_id === 'string' ? event.event_id : null
  try {
    return readEvent(event, frame.audio, eventId)
  } catch (err) {
    if (err instanceof Problem) return problem(err.code, err.detail, err.param, eventId)
    throw err
  }
}

function problem(
  code: string,
  detail: string,
  param: string | null,
  eventId: string | null,
): ProtocolProblem {
  return { problem: true, code, detail, param, eventId }
}

function readEvent(event: Json, audio: Uint8Array | null | undefined, eventId: string | null): ClientCommand {
  if (event.event_id !== undefined && typeof event.event_id !== 'string') {
    throw new Problem('invalid_type', 'event_id must be a string.', 'event_id')
  }
  const type = event.type
  if (type === undefined) throw new Problem('missing_required_parameter', 'the event has no type.', 'type')
  if (typeof type !== 'string') throw new Problem('invalid_type', 'type must be a string.', 'type')
  switch (type) {
    case 'session.update':
      return { type: 'update', shape: 'ga', patch: readGaSession(event.session), eventId }
    case 'transcription_session.update':
      return { type: 'update', shape: 'beta', patch: readBetaSession(event.session), eventId }
    case 'input_audio_buffer.append':
      return { type: 'append', audio: readAudio(event.audio, audio), eventId }
    case 'input_audio_buffer.commit':
      return { type: 'commit', eventId }
    case 'input_audio_buffer.clear':
      return { type: 'clear', eventId }
  }
  if (CONVERSATION_EVENTS.has(type)) {
    throw new Problem(
      'unsupported_event',
      `${type} is an event of conversation sessions; this is a transcription session.`,
      'type',
    )
  }
  // The type is not quoted back: nothing a client sends is echoed (it could carry a secret).
  throw new Problem('invalid_value', 'unknown event type.', 'type')
}

/** `field`: the frame's `audio` when it was not a string; `decoded`: the string's bytes (null: not base64). */
function readAudio(field: unknown, decoded: Uint8Array | null | undefined): Uint8Array {
  if (decoded === undefined) {
    if (field === undefined) throw new Problem('missing_required_parameter', 'audio is missing.', 'audio')
    throw new Problem('invalid_type', 'audio must be a base64 string.', 'audio')
  }
  if (decoded === null) throw new Problem('invalid_value', 'audio is not valid base64.', 'audio')
  const bytes = decoded
  if (bytes.length % 2 !== 0) {
    throw new Problem(
      'invalid_value',
      'audio must be whole 16-bit samples (an even number of bytes).',
      'audio',
    )
  }
  return bytes
}

/** GA: `session: { type: 'transcription', audio: { input: { format, transcription, turn_detection } } }`. */
function readGaSession(session: unknown): SessionPatch {
  const s = requireObject(session, 'session')
  if (s.type !== undefined && s.type !== 'transcription') {
    throw new Problem(
      'invalid_value',
      `session.type must be "transcription" (dictum serves transcription sessions only).`,
      'session.type',
    )
  }
  const patch: SessionPatch = {}
  const logprobs = readInclude(s.include, 'session.include')
  if (logprobs !== undefined) patch.logprobs = logprobs
  const audio = optionalObject(s.audio, 'session.audio')
  const input = audio && optionalObject(audio.input, 'session.audio.input')
  if (!input) return patch
  readNoiseReduction(input.noise_reduction, 'session.audio.input.noise_reduction')
  const format = optionalObject(input.format, 'session.audio.input.format')
  if (format) {
    if (format.type !== undefined && format.type !== 'audio/pcm') {
      throw new Problem(
        'invalid_value',
        'session.audio.input.format.type must be "audio/pcm" (16-bit PCM, mono, little-endian).',
        'session.audio.input.format.type',
      )
    }
    if (format.rate !== undefined)
      patch.inputSampleRate = readRate(format.rate, 'session.audio.input.format.rate')
  }
  readTranscription(input.transcription, 'session.audio.input.transcription', patch)
  if (input.turn_detection !== undefined) {
    patch.turnDetection = readTurnDetection(input.turn_detection, 'session.audio.input.turn_detection')
  }
  return patch
}

/** Beta: `session: { input_audio_format: 'pcm16', input_audio_transcription, turn_detection }`. */
function readBetaSession(session: unknown): SessionPatch {
  const s = requireObject(session, 'session')
  const patch: SessionPatch = {}
  if (s.input_audio_format !== undefined && s.input_audio_format !== 'pcm16') {
    throw new Problem(
      'invalid_value',
      'session.input_audio_format must be "pcm16" (16-bit PCM at 24 kHz, mono, little-endian).',
      'session.input_audio_format',
    )
  }
  if (s.input_audio_format === 'pcm16') patch.inputSampleRate = 24000
  const logprobs = readInclude(s.include, 'session.include')
  if (logprobs !== undefined) patch.logprobs = logprobs
  readNoiseReduction(s.input_audio_noise_reduction, 'session.input_audio_noise_reduction')
  readTranscription(s.input_audio_transcription, 'session.input_audio_transcription', patch)
  if (s.turn_detection !== undefined) {
    patch.turnDetection = readTurnDetection(s.turn_detection, 'session.turn_detection')
  }
  return patch
}

function readRate(rate: unknown, param: string): 16000 | 24000 {
  if (rate === 24000 || rate === 16000) return rate
  throw new Problem('invalid_value', `${param} must be 24000 (or 16000, a dictum extension).`, param)
}

function readTranscription(value: unknown, param: string, patch: SessionPatch): void {
  const transcription = optionalObject(value, param)
  if (!transcription) return
  const model = optionalString(transcription.model, `${param}.model`)
  if (model !== undefined) patch.model = model
  // An empty string clears a field, as in OpenAI's session.update.
  if (transcription.language !== undefined) {
    patch.language = optionalString(transcription.language, `${param}.language`) || undefined
  }
  if (transcription.languages !== undefined && transcription.languages !== null) {
    if (patch.language !== undefined) {
      throw new Problem(
        'invalid_value',
        `${param}: give language or languages, not both.`,
        `${param}.languages`,
      )
    }
    // languages replaces language (and an empty list clears both)
    patch.language = undefined
    patch.languages = readLanguages(transcription.languages, `${param}.languages`)
  }
  if (transcription.prompt !== undefined) {
    patch.prompt = optionalString(transcription.prompt, `${param}.prompt`) || undefined
  }
  if (transcription.keywords !== undefined)
    patch.keywords = readKeywords(transcription.keywords, `${param}.keywords`)
}

/** `server_vad` with OpenAI's defaults for absent fields; `semantic_vad` by its eagerness; null: off. */
function readTurnDetection(value: unknown, param: string): RealtimeTurnDetection | null {
  if (value === null) return null
  const td = requireObject(value, param)
  if (td.type === 'semantic_vad') return readSemanticVad(td, param, DEFAULT_SERVER_VAD)
  if (td.type !== undefined && td.type !== 'server_vad') {
    throw new Problem(
      'invalid_value',
      `${param}.type must be "server_vad", "semantic_vad" or null.`,
      `${param}.type`,
    )
  }
  return {
    type: 'server_vad',
    threshold: readThreshold(td.threshold, `${param}.threshold`),
    prefixPaddingMs:
      integerIn(td.prefix_padding_ms, 0, 10_000, `${param}.prefix_padding_ms`) ??
      DEFAULT_SERVER_VAD.prefixPaddingMs,
    silenceDurationMs:
      integerIn(td.silence_duration_ms, 0, 10_000, `${param}.silence_duration_ms`) ??
      DEFAULT_SERVER_VAD.silenceDurationMs,
  }
}

/** What the Silero VAD takes (live/turn-detector.ts): others were accepted, then every window was dropped. */
function readThreshold(value: unknown, param: string): number {
  if (value === undefined || value === null) return DEFAULT_SERVER_VAD.threshold
  const problem = thresholdProblem(value as number)
  if (problem) throw new Problem('invalid_value', `${param} ${problem}.`, param)
  return value as number
}

function requireObject(value: unknown, param: string): Json {
  if (value === undefined) throw new Problem('missing_required_parameter', `${param} is missing.`, param)
  if (!isObject(value)) throw new Problem('invalid_type', `${param} must be an object.`, param)
  return value
}

function optionalObject(value: unknown, param: string): Json | null {
  if (value === undefined || value === null) return null
  if (!isObject(value)) throw new Problem('invalid_type', `${param} must be an object.`, param)
  return value
}

function optionalString(value: unknown, param: string): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw new Problem('invalid_type', `${param} must be a string.`, param)
  if (value.length > 4096)
    throw new Problem('invalid_value', `${param} is longer than 4096 characters.`, param)
  return value
}

function integerIn(value: unknown, min: number, max: number, param: string): number | undefined {
  if (value === undefined || value === null) return undefined
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    throw new Problem('invalid_value', `${param} must be a whole number from ${min} to ${max}.`, param)
  }
  return value as number
}
