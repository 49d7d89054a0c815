/**
 * A transcript as a document: the one formatter of `dictum transcribe --format` and of
 * `/v1/audio/transcriptions` `response_format`, so the same audio gives the same file from either.
 *
 * - `text`: the text and a newline, as OpenAI sends it.
 * - `json`: dictum's JSON, every field of the transcript (the CLI's `--format json`). OpenAI's own `json`
 *   response is `{"text"}` only: the OpenAI route answers that itself.
 * - `verbose_json`: OpenAI's document. A segment's `avg_logprob` is the natural log of dictum's confidence
 *   for it (the mean confidence of its words when the engine gave word confidences, else the transcript's),
 *   so `exp(avg_logprob)` gives dictum's 0..1 figure back; `no_speech_prob` is 0: the VAD has already
 *   dropped pieces without speech.
 * - `srt`, `vtt`: subtitles (subtitles.ts).
 */
import { deflateSync } from 'node:zlib'
import type { TranscriptWord } from '../kernel/contracts/engine.ts'
import type { VerboseSegment, VerboseTranscription, VerboseWord } from './schemas.ts'
import type { Transcript } from './service.ts'
import { cuesOf, formatSrt, formatVtt } from './subtitles.ts'

export const DOCUMENT_FORMATS = ['text', 'json', 'verbose_json', 'srt', 'vtt'] as const
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number]

/** File name extension of each format (`dictum transcribe -o`, job result files). */
export const DOCUMENT_EXTENSIONS: Record<DocumentFormat, string> = {
  text: 'txt',
  json: 'json',
  verbose_json: 'verbose.json',
  srt: 'srt',
  vtt: 'vtt',
}

export interface DocumentOptions {
  /** The dictionary's replacement pass (subtitle cues cut from word timings go through it). */
  replace: (text: string) => string
  /** `json`: the file the transcript came from; one line instead of indented. */
  file?: string
  compact?: boolean
  /** `verbose_json`: the request's temperature and language, and whether words are wanted. */
  temperature?: number
  language?: string
  words?: boolean
}

export function formatDocument(
  format: DocumentFormat,
  transcript: Transcript,
  options: DocumentOptions,
): string {
  switch (format) {
    case 'text':
      return `${transcript.text}\n`
    case 'json':
      return `${JSON.stringify(transcriptJson(transcript, options.file), null, options.compact ? 0 : 2)}\n`
    case 'verbose_json':
      return `${JSON.stringify(verboseJson(transcript, options), null, options.compact ? 0 : 2)}\n`
    case 'srt':
      return formatSrt(cuesOf(transcript, options.replace))
    case 'vtt':
      return formatVtt(cuesOf(transcript, options.replace))
  }
}

/** The fields of a transcript as `--format json` shows them, with the file it came from. */
export function transcriptJson(transcript: Transcript, file?: string): Record<string, unknown> {
  return {
    ...(file !== undefined ? { file } : {}),
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

/** Whisper's measure of repetitive output: bytes of the text over bytes of its zlib compression. */
function compressionRatio(text: string): number {
  const bytes = Buffer.byteLength(text)
  return bytes === 0 ? 0 : bytes / deflateSync(text).length
}

function segmentConfidence(words: readonly TranscriptWord[], start: number, end: number, fallback: number) {
  const scored = words.filter(
    (w) => w.start >= start - 0.02 && w.end <= end + 0.02 && w.confidence !== undefined,
  )
  if (scored.length === 0) return fallback
  return scored.reduce((sum, w) => sum + (w.confidence as number), 0) / scored.length
}

export function verboseJson(
  transcript: Transcript,
  options: Pick<DocumentOptions, 'temperature' | 'language' | 'words'>,
): VerboseTranscription {
  const words = transcript.words ?? []
  const segments: VerboseSegment[] = transcript.segments.map((s, id) => ({
    id,
    seek: Math.floor(s.start * 100),
    start: s.start,
    end: s.end,
    text: s.text,
    tokens: [],
    temperature: options.temperature ?? 0,
    avg_logprob: Math.log(Math.max(1e-6, segmentConfidence(words, s.start, s.end, transcript.confidence))),
    compression_ratio: compressionRatio(s.text),
    no_speech_prob: 0,
  }))
  const reply: VerboseTranscription = {
    task: 'transcribe',
    language: transcript.language ?? options.language ?? 'unknown',
    duration: transcript.durationSeconds,
    text: transcript.text,
    segments,
  }
  if (options.words && transcript.words) {
    reply.words = transcript.words.map((w): VerboseWord => {
      const word: VerboseWord = { word: w.word, start: w.start, end: w.end }
      if (w.confidence !== undefined) word.probability = w.confidence
      return word
    })
  }
  if (transcript.languages) reply.languages = transcript.languages
  return reply
}
