/**
 * A dictum transcript in each of OpenAI's response formats: `json` is OpenAI's `{"text"}` (with `languages`,
 * and `logprobs` when asked for); `verbose_json` is the document dictum's one formatter writes
 * (transcription/formats.ts) with `languages`; the others are that formatter's documents, as
 * `dictum transcribe` writes them. A translation's `verbose_json` says `task: "translate"`, language `english`.
 */
import { formatDocument, verboseJson } from '../../transcription/formats.ts'
import { detectedLanguages } from '../../transcription/languages.ts'
import { toLogprobs } from '../../transcription/logprobs.ts'
import type { Transcript } from '../../transcription/service.ts'
import type { ResponseFormat } from './schemas.ts'

export interface FormattedReply {
  contentType: string
  body: string | Record<string, unknown>
}

/** What a response is made of beside the transcript. */
export interface ReplyOptions {
  format: ResponseFormat
  temperature: number
  language?: string
  words: boolean
  logprobs?: boolean
  translate?: boolean
  /** The engine's languages (`capabilities.languages`): a single one is the transcript's. */
  engineLanguages: readonly string[]
}

const CONTENT_TYPES = {
  text: 'text/plain; charset=utf-8',
  srt: 'text/plain; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
} as const

const JSON_TYPE = 'application/json; charset=utf-8'

export function formatTranscript(
  transcript: Transcript,
  options: ReplyOptions,
  replace: (text: string) => string,
): FormattedReply {
  const languages = options.translate
    ? [{ code: 'en' }]
    : (transcript.languages ?? detectedLanguages(transcript, options.engineLanguages))
  if (options.format === 'json') {
    const body: Record<string, unknown> = { text: transcript.text, languages }
    if (options.logprobs) body.logprobs = toLogprobs(transcript.tokens ?? [])
    return { contentType: JSON_TYPE, body }
  }
  const document = {
    replace,
    compact: true,
    temperature: options.temperature,
    ...(options.language !== undefined ? { language: options.language } : {}),
    words: options.words,
  }
  if (options.format === 'verbose_json') {
    const verbose = verboseJson(transcript, document)
    const body = options.translate ? { ...verbose, task: 'translate', language: 'english' } : verbose
    return { contentType: JSON_TYPE, body: JSON.stringify({ ...body, languages }) }
  }
  return {
    contentType: CONTENT_TYPES[options.format],
    body: formatDocument(options.format, transcript, document),
  }
}

/** The streamed `transcript.text.done` event's fields: those of the `json` response. */
export function doneEvent(
  transcript: Transcript,
  options: ReplyOptions,
): { text: string } & Record<string, unknown> {
  return formatTranscript(transcript, { ...options, format: 'json' }, (text) => text).body as { text: string }
}
