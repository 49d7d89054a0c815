/**
 * A dictum transcript in each of OpenAI's response formats. `avg_logprob` of a verbose_json segment is the
 * natural log of dictum's confidence for it (the mean confidence of its words when the engine gave word
 * confidences, else the transcript's), so a client computing `exp(avg_logprob)` gets dictum's 0..1 figure
 * back. `no_speech_prob` is 0: the kernel's VAD has already dropped pieces without speech.
 */
import { deflateSync } from 'node:zlib'
import type { TranscriptWord } from '../../kernel/contracts/engine.ts'
import type { Transcript } from '../transcribe/service.ts'
import { cuesOf, formatSrt, formatVtt } from '../transcribe/subtitles.ts'
import type { TranscriptionParams } from './params.ts'
import type { VerboseSegment, VerboseTranscription, VerboseWord } from './schemas.ts'

export interface FormattedReply {
  contentType: string
  body: string | Record<string, unknown>
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

export function verboseJson(transcript: Transcript, params: TranscriptionParams): VerboseTranscription {
  const words = transcript.words ?? []
  const segments: VerboseSegment[] = transcript.segments.map((s, id) => ({
    id,
    seek: Math.floor(s.start * 100),
    start: s.start,
    end: s.end,
    text: s.text,
    tokens: [],
    temperature: params.temperature,
    avg_logprob: Math.log(Math.max(1e-6, segmentConfidence(words, s.start, s.end, transcript.confidence))),
    compression_ratio: compressionRatio(s.text),
    no_speech_prob: 0,
  }))
  const reply: VerboseTranscription = {
    task: 'transcribe',
    language: transcript.language ?? params.language ?? 'unknown',
    duration: transcript.durationSeconds,
    text: transcript.text,
    segments,
  }
  if (params.words && transcript.words) {
    reply.words = transcript.words.map((w): VerboseWord => {
      const word: VerboseWord = { word: w.word, start: w.start, end: w.end }
      if (w.confidence !== undefined) word.probability = w.confidence
      return word
    })
  }
  return reply
}

export function formatTranscript(
  transcript: Transcript,
  params: TranscriptionParams,
  replace: (text: string) => string,
): FormattedReply {
  switch (params.format) {
    case 'json':
      return { contentType: 'application/json; charset=utf-8', body: { text: transcript.text } }
    case 'verbose_json':
      return { contentType: 'application/json; charset=utf-8', body: { ...verboseJson(transcript, params) } }
    case 'text':
      return { contentType: 'text/plain; charset=utf-8', body: `${transcript.text}\n` }
    case 'srt':
      return {
        contentType: 'text/plain; charset=utf-8',
        body: formatSrt(cuesOf(transcript, replace)),
      }
    case 'vtt':
      return {
        contentType: 'text/vtt; charset=utf-8',
        body: formatVtt(cuesOf(transcript, replace)),
      }
  }
}
