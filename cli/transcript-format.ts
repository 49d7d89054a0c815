/** How `dictum transcribe` writes a transcript: plain text, JSON, SRT or WebVTT. */
import type { Transcript } from '../plugins/transcribe/service.ts'
import { cuesOf, formatSrt, formatVtt } from '../plugins/transcribe/subtitles.ts'
import { usageError } from './cli-error.ts'

export const FORMATS = ['text', 'json', 'srt', 'vtt'] as const
export type TranscriptFormat = (typeof FORMATS)[number]

/** File name extension of each format. */
export const EXTENSIONS: Record<TranscriptFormat, string> = {
  text: 'txt',
  json: 'json',
  srt: 'srt',
  vtt: 'vtt',
}

export function parseFormat(format: string | undefined, json: boolean | undefined): TranscriptFormat {
  if (json && format !== undefined && format !== 'json')
    throw usageError(`--json and --format ${format} contradict each other.`)
  const chosen = format ?? (json ? 'json' : 'text')
  if (!(FORMATS as readonly string[]).includes(chosen))
    throw usageError(`Unknown format "${chosen}" (use one of: ${FORMATS.join(', ')}).`)
  return chosen as TranscriptFormat
}

/** The fields of a transcript as `--format json` shows them, with the file it came from. */
export function transcriptJson(file: string, transcript: Transcript): Record<string, unknown> {
  return {
    file,
    text: transcript.text,
    rawText: transcript.rawText,
    confidence: transcript.confidence,
    language: transcript.language,
    engine: transcript.engine,
    provider: transcript.provider,
    durationSeconds: transcript.durationSeconds,
    sampleCount: transcript.sampleCount,
    segments: transcript.segments,
    words: transcript.words,
  }
}

/**
 * The document for one file. `compact`: JSON on one line (stdout, one line per file); otherwise indented.
 * `replace` is the dictionary's replacement pass (subtitle cues cut from word timings go through it).
 */
export function renderTranscript(
  format: TranscriptFormat,
  file: string,
  transcript: Transcript,
  options: { compact: boolean; replace: (text: string) => string },
): string {
  switch (format) {
    case 'text':
      return `${transcript.text}\n`
    case 'json':
      return `${JSON.stringify(transcriptJson(file, transcript), null, options.compact ? 0 : 2)}\n`
    case 'srt':
      return formatSrt(cuesOf(transcript, options.replace))
    case 'vtt':
      return formatVtt(cuesOf(transcript, options.replace))
  }
}
