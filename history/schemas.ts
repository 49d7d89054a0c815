/** TypeBox schemas of history entries (spec 2.4) and of the /v1/history routes (spec 4.6, and extensions). */
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
  durationSeconds: Type.Union([Type.Number(), Type.Null()], {
    description: '(extension) Seconds of audio; null for entries stored before it was recorded.',
  }),
  processingMs: Type.Union([Type.Integer(), Type.Null()], {
    description:
      '(extension) From the audio to the final text (AI clean-up included), ms; null when not measured.',
  }),
  engine: Type.Union([Type.String(), Type.Null()], { description: "(extension) The speech engine's id." }),
  provider: Type.Union([Type.String(), Type.Null()], {
    description: '(extension) The AI provider that cleaned the text up; null when none ran.',
  }),
  correctedText: Type.Union([Type.String(), Type.Null()], {
    description:
      '(extension) The text the user kept (POST /v1/history/{id}/correction); null when never corrected.',
  }),
  hasAudio: Type.Boolean({
    description: '(extension) Whether the recording is kept: GET /v1/history/{id}/audio plays it.',
  }),
})
export type HistoryEntry = Static<typeof HistoryEntrySchema>

export const HistoryListSchema = Type.Object({
  count: Type.Integer(),
  items: Type.Array(HistoryEntrySchema),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: '(extension) Pass as `cursor` for the next page; null when this page is the last.',
  }),
})

// Query parameters are typed Unknown: dictum parses them itself (a repeated one: the first counts; a
// non-integer limit means the default, docs/api-decisions.md), with its own messages.
const FilterQuery = {
  q: Type.Optional(
    Type.Unknown({
      description: 'Text search: case-insensitive part of the raw, final or corrected text (1000 max).',
    }),
  ),
  app: Type.Optional(Type.Unknown({ description: 'Only entries of this exact appName.' })),
  from: Type.Optional(
    Type.Unknown({ description: 'Entries at or after this ISO 8601 date or date-time (with a zone).' }),
  ),
  to: Type.Optional(
    Type.Unknown({ description: 'Entries before this ISO 8601 date or date-time (with a zone).' }),
  ),
}

export const HistoryQuerySchema = Type.Object({
  limit: Type.Optional(Type.Unknown({ description: 'At most this many entries (default 100, 1..1000).' })),
  cursor: Type.Optional(Type.Unknown({ description: 'The nextCursor of the previous page.' })),
  ...FilterQuery,
})

export const HistoryExportQuerySchema = Type.Object({
  format: Type.Optional(Type.Unknown({ description: 'json (default), csv or md.' })),
  audio: Type.Optional(
    Type.Unknown({
      description:
        'true (json only): each entry carries `audio`, its recording as base64 FLAC (default false).',
    }),
  ),
  ...FilterQuery,
})

export const HistoryClearQuerySchema = Type.Object({
  confirm: Type.Optional(Type.Unknown({ description: 'Must be true: guards against a stray call.' })),
})

export const HistoryIdParamsSchema = Type.Object({ id: Type.String() })

export const HistoryDeletedSchema = Type.Object({
  deleted: Type.Integer({ description: 'How many entries were deleted.' }),
})

export const HISTORY_LIMIT = { default: 100, min: 1, max: 1000 } as const
