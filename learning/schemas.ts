/** TypeBox schemas of suggestions (GET /v1/dictionary/suggestions) and of corrections. */
import { type Static, Type } from '@sinclair/typebox'
import { HistoryEntrySchema } from '../history/schemas.ts'

export const ProposedCustomWordSchema = Type.Object(
  {
    text: Type.String(),
    weight: Type.Union([Type.Number(), Type.Null()]),
    aliases: Type.Array(Type.String()),
  },
  { description: 'A custom word as POST /v1/dictionary/custom-words takes it.' },
)

export const ProposedReplacementSchema = Type.Object(
  { triggers: Type.Array(Type.String()), replacement: Type.String() },
  { description: 'A replacement rule as POST /v1/dictionary/replacements takes it.' },
)

export const ReplayRecordingSchema = Type.Object({
  entryId: Type.String(),
  reference: Type.String({ description: 'The corrected text (or the final text of an uncorrected entry).' }),
  before: Type.String({ description: 'Transcribed again without the suggestion.' }),
  after: Type.String({ description: 'Transcribed again with the suggestion.' }),
  verdict: Type.Union([Type.Literal('fixed'), Type.Literal('broken'), Type.Literal('same')]),
})

export const ReplaySchema = Type.Object({
  checked: Type.Integer({ description: 'Recordings transcribed again.' }),
  fixed: Type.Integer({ description: 'Recordings with fewer word errors with the suggestion.' }),
  broken: Type.Integer({ description: 'Recordings with more word errors with the suggestion.' }),
  werBefore: Type.Number({
    description: 'Word error rate of the checked recordings without the suggestion.',
  }),
  werAfter: Type.Number({ description: 'Word error rate with it.' }),
  engine: Type.String(),
  seconds: Type.Number({ description: 'How long the replay took.' }),
  complete: Type.Boolean({ description: 'False when the time bound stopped it before every recording.' }),
  at: Type.String({ format: 'date-time' }),
  recordings: Type.Array(ReplayRecordingSchema),
})
export type Replay = Static<typeof ReplaySchema>

export const SuggestionStateSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('accepted'),
  Type.Literal('dismissed'),
])

export const SuggestionSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  kind: Type.Union([Type.Literal('customWord'), Type.Literal('replacement')]),
  entry: Type.Union([ProposedCustomWordSchema, ProposedReplacementSchema]),
  heard: Type.String({ description: 'What the engine wrote where the user meant `entry`.' }),
  evidence: Type.Array(Type.String(), { description: 'The history entries whose corrections showed it.' }),
  engine: Type.Union([Type.String(), Type.Null()], { description: 'The engine that misheard.' }),
  replay: Type.Union([ReplaySchema, Type.Null()]),
  state: SuggestionStateSchema,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
})
export type Suggestion = Static<typeof SuggestionSchema>

export const SuggestionListSchema = Type.Object({
  count: Type.Integer(),
  items: Type.Array(SuggestionSchema),
})

export const CorrectionBodySchema = Type.Object({
  text: Type.String({ description: 'The text the user kept.' }),
})

export const CorrectionResultSchema = Type.Object({
  entry: HistoryEntrySchema,
  suggestions: Type.Array(SuggestionSchema, {
    description: 'The suggestions this correction created or strengthened.',
  }),
})

export const SuggestionParamsSchema = Type.Object({ id: Type.String() })

/** At most this many characters in a correction (a dictation's text is bounded likewise). */
export const MAX_CORRECTION_LENGTH = 100_000
