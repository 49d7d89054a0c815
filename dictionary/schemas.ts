/** TypeBox schemas of the dictionary resources and write payloads (spec 2.1, 2.2, 4.2, 4.4). */
import { type Static, Type } from '@sinclair/typebox'

export const LIMITS = {
  maxRules: 1000,
  maxWords: 256,
  maxTriggersPerRule: 50,
  maxTriggerLength: 200,
  maxReplacementLength: 2000,
  maxWordLength: 200,
  maxAliasesPerWord: 20,
  maxWeight: 100,
} as const

export const Mode = Type.Union([Type.Literal('append'), Type.Literal('replace')])

export const ReplacementRuleSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  triggers: Type.Array(Type.String()),
  replacement: Type.String(),
})
export type ReplacementRule = Static<typeof ReplacementRuleSchema>

export const CustomWordSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  text: Type.String(),
  weight: Type.Union([Type.Number(), Type.Null()]),
  aliases: Type.Array(Type.String()),
})
export type CustomWord = Static<typeof CustomWordSchema>

export const ReplacementEntrySchema = Type.Object({
  id: Type.Optional(Type.String()),
  triggers: Type.Array(Type.String()),
  replacement: Type.String(),
})
export type ReplacementEntry = Static<typeof ReplacementEntrySchema>

export const CustomWordEntrySchema = Type.Object({
  id: Type.Optional(Type.String()),
  text: Type.String(),
  weight: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  aliases: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
})
export type CustomWordEntry = Static<typeof CustomWordEntrySchema>

export const ReplacementsWriteSchema = Type.Object({
  mode: Type.Optional(Mode),
  id: Type.Optional(Type.String()),
  triggers: Type.Optional(Type.Array(Type.String())),
  replacement: Type.Optional(Type.String()),
  entries: Type.Optional(Type.Array(ReplacementEntrySchema)),
})
export type ReplacementsWrite = Static<typeof ReplacementsWriteSchema>

export const CustomWordsWriteSchema = Type.Object({
  mode: Type.Optional(Mode),
  id: Type.Optional(Type.String()),
  text: Type.Optional(Type.String()),
  weight: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  aliases: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
  entries: Type.Optional(Type.Array(CustomWordEntrySchema)),
})
export type CustomWordsWrite = Static<typeof CustomWordsWriteSchema>

export const ReplacementListSchema = Type.Object({
  count: Type.Integer(),
  items: Type.Array(ReplacementRuleSchema),
})

export const CustomWordListSchema = Type.Object({
  count: Type.Integer(),
  items: Type.Array(CustomWordSchema),
})

/** PATCH /v1/dictionary/replacements/:id: the fields to change (omitted ones keep their value). */
export const ReplacementPatchSchema = Type.Object({
  triggers: Type.Optional(Type.Array(Type.String())),
  replacement: Type.Optional(Type.String()),
})

/** PATCH /v1/dictionary/custom-words/:id: the fields to change (omitted ones keep their value). */
export const CustomWordPatchSchema = Type.Object({
  text: Type.Optional(Type.String()),
  weight: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  aliases: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
})

/** The `:id` of the single-entry routes. */
export const EntryParamsSchema = Type.Object({ id: Type.String() })
