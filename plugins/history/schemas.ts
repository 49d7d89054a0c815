/** TypeBox schemas of history entries (spec 2.4) and GET /v1/history (spec 4.6). */
import { type Static, Type } from '@sinclair/typebox'

export const HistoryEntrySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  timestamp: Type.String({ format: 'date-time' }),
  originalText: Type.String(),
  rawText: Type.String(),
  finalText: Type.String(),
  processedText: Type.String(),
  appName: Type.String(),
  windowTitle: Type.String(),
  characterCount: Type.Integer(),
  wasAIProcessed: Type.Boolean(),
  aiProcessingError: Type.Union([Type.String(), Type.Null()]),
})
export type HistoryEntry = Static<typeof HistoryEntrySchema>

export const HistoryListSchema = Type.Object({
  count: Type.Integer(),
  items: Type.Array(HistoryEntrySchema),
})

export const HistoryQuerySchema = Type.Object({
  // Anything goes: a non-integer limit means the default (docs/api-decisions.md), never a 400.
  limit: Type.Optional(Type.Unknown()),
})

export const HISTORY_LIMIT = { default: 100, min: 1, max: 1000 } as const
