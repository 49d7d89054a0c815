/** How `dictum transcribe` writes a transcript: the formats of the one formatter (transcription/formats.ts). */
import {
  DOCUMENT_EXTENSIONS,
  DOCUMENT_FORMATS,
  type DocumentFormat,
  formatDocument,
} from '../transcription/formats.ts'
import type { Transcript } from '../transcription/service.ts'
import { usageError } from './cli-error.ts'

export const FORMATS = DOCUMENT_FORMATS
export type TranscriptFormat = DocumentFormat

/** File name extension of each format. */
export const EXTENSIONS: Record<TranscriptFormat, string> = DOCUMENT_EXTENSIONS

export function parseFormat(format: string | undefined, json: boolean | undefined): TranscriptFormat {
  if (json && format !== undefined && format !== 'json')
    throw usageError(`--json and --format ${format} contradict each other.`)
  const chosen = format ?? (json ? 'json' : 'text')
  if (!(FORMATS as readonly string[]).includes(chosen))
    throw usageError(`Unknown format "${chosen}" (use one of: ${FORMATS.join(', ')}).`)
  return chosen as TranscriptFormat
}

/**
 * The document for one file. `compact`: JSON on one line (stdout, one line per file); otherwise indented.
 * `replace` is the dictionary's replacement pass (subtitle cues cut from word timings go through it).
 * `verbose_json` carries the words (OpenAI's `timestamp_granularities[]=word`).
 */
export function renderTranscript(
  format: TranscriptFormat,
  file: string,
  transcript: Transcript,
  options: { compact: boolean; replace: (text: string) => string },
): string {
  return formatDocument(format, transcript, { ...options, file, words: true })
}
