/** TypeBox schema of the transcription result (spec 2.5), plus `rawText` (docs/api-decisions.md). */
import { Type } from '@sinclair/typebox'

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
