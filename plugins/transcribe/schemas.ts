/** TypeBox schema of the transcription result (spec 2.5), plus `rawText` (DECISIONS.md). */
import { Type } from '@sinclair/typebox'

export const TranscriptionResultSchema = Type.Object({
  text: Type.String(),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  sampleCount: Type.Integer({ minimum: 0 }),
  provider: Type.String(),
  rawText: Type.String(),
})
