/**
 * The server events of an OpenAI Realtime transcription session, as OpenAI names and shapes them (the openai
 * package's `RealtimeServerEvent` types): every one carries a fresh `event_id`. The session object is
 * rendered in the shape the client speaks: GA (`session.created` / `session.updated`, a `transcription`
 * session with `audio.input`) or beta (`transcription_session.created` / `.updated`, `input_audio_format`).
 */
import { randomBytes } from 'node:crypto'
import type { DictumError } from '../../errors/catalogue.ts'
import type { EventShape } from './client-events.ts'
import { INCLUDE_LOGPROBS, type RealtimeTurnDetection } from './session-fields.ts'

/** The session's effective settings, as the client sees them. */
export interface SessionSettings {
  id: string
  /** The transcription model as named by the client, or the engine that runs when none was named. */
  model: string
  language: string | undefined
  languages: string[] | undefined
  prompt: string | undefined
  keywords: string[]
  /** Whether the keywords reach the engine (its `customWords` capability); shown when there are keywords. */
  keywordsApplied: boolean
  /** `include: ["item.input_audio_transcription.logprobs"]`. */
  logprobs: boolean
  turnDetection: RealtimeTurnDetection | null
  inputSampleRate: 16000 | 24000
}

export type ServerEvent = { type: string; event_id: string } & Record<string, unknown>

/** `event_` and 20 random hex digits, as OpenAI's event ids look. */
export function newEventId(): string {
  return `event_${randomBytes(10).toString('hex')}`
}

export function serverEvent(type: string, fields: Record<string, unknown> = {}): ServerEvent {
  return { type, event_id: newEventId(), ...fields }
}

function turnDetection(vad: RealtimeTurnDetection | null) {
  if (!vad) return null
  if (vad.eagerness) return { type: 'semantic_vad', eagerness: vad.eagerness }
  return {
    type: 'server_vad',
    threshold: vad.threshold,
    prefix_padding_ms: vad.prefixPaddingMs,
    silence_duration_ms: vad.silenceDurationMs,
  }
}

/** OpenAI's transcription object; `keywords_applied` (dictum's) says whether the engine takes the keywords. */
function transcription(s: SessionSettings) {
  return {
    model: s.model,
    language: s.language ?? null,
    ...(s.languages ? { languages: s.languages } : {}),
    prompt: s.prompt ?? null,
    ...(s.keywords.length > 0 ? { keywords: s.keywords, keywords_applied: s.keywordsApplied } : {}),
  }
}

/** `session.created` / `session.updated` (GA), or `transcription_session.created` / `.updated` (beta). */
export function sessionEvent(
  shape: EventShape,
  what: 'created' | 'updated',
  s: SessionSettings,
): ServerEvent {
  const include = s.logprobs ? [INCLUDE_LOGPROBS] : []
  if (shape === 'beta') {
    return serverEvent(`transcription_session.${what}`, {
      session: {
        id: s.id,
        object: 'realtime.transcription_session',
        input_audio_format: 'pcm16',
        input_audio_transcription: transcription(s),
        turn_detection: turnDetection(s.turnDetection),
        input_audio_noise_reduction: null,
        include: s.logprobs ? include : null,
      },
    })
  }
  return serverEvent(`session.${what}`, {
    session: {
      id: s.id,
      object: 'realtime.transcription_session',
      type: 'transcription',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: s.inputSampleRate },
          transcription: transcription(s),
          turn_detection: turnDetection(s.turnDetection),
          noise_reduction: null,
        },
      },
      include,
    },
  })
}

/** OpenAI's error object. */
export interface RealtimeErrorObject {
  type: 'invalid_request_error' | 'server_error'
  code: string
  message: string
  param: string | null
  event_id: string | null
}

/**
 * A catalogue error as OpenAI's error object: `code` is the catalogue code in lower case (as on HTTP), or
 * OpenAI's own code where the live session names one (`input_audio_buffer_commit_empty`).
 */
export function errorObject(error: DictumError, eventId: string | null = null): RealtimeErrorObject {
  const { param, reason } = error.extra ?? {}
  return {
    type: error.statusCode >= 500 ? 'server_error' : 'invalid_request_error',
    code: typeof reason === 'string' ? reason : error.code.toLowerCase(),
    message: error.message,
    param: typeof param === 'string' ? param : null,
    event_id: eventId,
  }
}

export function errorEvent(error: RealtimeErrorObject): ServerEvent {
  return serverEvent('error', { error })
}
