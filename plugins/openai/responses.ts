/**
 * A dictum transcript in each of OpenAI's response formats: `json` is OpenAI's `{"text"}`; the others are the
 * documents dictum's one formatter writes (plugins/transcribe/formats.ts), as `dictum transcribe` does.
 */
import { formatDocument } from '../transcribe/formats.ts'
import type { Transcript } from '../transcribe/service.ts'
import type { TranscriptionParams } from './params.ts'

export interface FormattedReply {
  contentType: string
  body: string | Record<string, unknown>
}

const CONTENT_TYPES = {
  verbose_json: 'application/json; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  srt: 'text/plain; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
} as const

export function formatTranscript(
  transcript: Transcript,
  params: TranscriptionParams,
  replace: (text: string) => string,
): FormattedReply {
  if (params.format === 'json')
    return { contentType: 'application/json; charset=utf-8', body: { text: transcript.text } }
  const body = formatDocument(params.format, transcript, {
    replace,
    compact: true,
    temperature: params.temperature,
    ...(params.language !== undefined ? { language: params.language } : {}),
    words: params.words,
  })
  // JSON goes out as it was written, without the newline that ends a file.
  return {
    contentType: CONTENT_TYPES[params.format],
    body: params.format === 'verbose_json' ? body.trimEnd() : body,
  }
}
