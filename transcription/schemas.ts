/** TypeBox schema of the transcription result (spec 2.5), plus `rawText` (docs/api-decisions.md). */
import { type Static, Type } from '@sinclair/typebox'

const SegmentSchema = Type.Object({ text: Type.String(), start: Type.Number(), end: Type.Number() })
const WordSchema = Type.Object({
  word: Type.String(),
  start: Type.Number(),
  end: Type.Number(),
  confidence: Type.Optional(Type.Number()),
})

export const TranscriptionResultSchema = Type.Object({
  text: Type.String(),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  sampleCount: Type.Integer({ minimum: 0 }),
  provider: Type.String(),
  rawText: Type.String(),
  // With `?verbose=true` (an extension: what `dictum transcribe` needs from a running service).
  engine: Type.Optional(Type.String()),
  language: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  durationSeconds: Type.Optional(Type.Number()),
  segments: Type.Optional(Type.Array(SegmentSchema)),
  words: Type.Optional(Type.Union([Type.Array(WordSchema), Type.Null()])),
})

/** `?verbose=true` adds the engine id, language, duration, segments and words (times in seconds). */
export const TranscribeQuerySchema = Type.Object({
  verbose: Type.Optional(
    Type.Boolean({ description: 'Also return engine, language, durationSeconds, segments, words.' }),
  ),
})

/** OpenAI's `verbose_json` transcription document (also `dictum transcribe --format verbose_json`). */
export const VerboseSegmentSchema = Type.Object({
  id: Type.Integer(),
  seek: Type.Integer(),
  start: Type.Number(),
  end: Type.Number(),
  text: Type.String(),
  tokens: Type.Array(Type.Integer()),
  temperature: Type.Number(),
  avg_logprob: Type.Number(),
  compression_ratio: Type.Number(),
  no_speech_prob: Type.Number(),
})

export const VerboseWordSchema = Type.Object({
  word: Type.String(),
  start: Type.Number(),
  end: Type.Number(),
  probability: Type.Optional(Type.Number()),
})

export const VerboseTranscriptionSchema = Type.Object({
  task: Type.Literal('transcribe'),
  language: Type.String(),
  duration: Type.Number(),
  text: Type.String(),
  segments: Type.Array(VerboseSegmentSchema),
  words: Type.Optional(Type.Array(VerboseWordSchema)),
  /** OpenAI's detected languages (ISO 639-1), `[]` when the engine cannot tell. */
  languages: Type.Optional(Type.Array(Type.Object({ code: Type.String() }))),
})

export type VerboseSegment = Static<typeof VerboseSegmentSchema>
export type VerboseWord = Static<typeof VerboseWordSchema>
export type VerboseTranscription = Static<typeof VerboseTranscriptionSchema>
