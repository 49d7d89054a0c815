/**
 * The `learning` config section: suggestions learned from corrections and their replay.
 * Composed with the other sections by server/config-schema.ts.
 */
import { type Static, Type } from '@sinclair/typebox'
import { configSection } from '../config/schema.ts'

export const LearningSchema = Type.Object(
  {
    autoAccept: Type.Boolean({
      default: false,
      description:
        'Accept a suggestion learned from corrections on its own when its replay fixes at least one recording and breaks none.',
    }),
    replaySample: Type.Integer({
      minimum: 0,
      maximum: 200,
      default: 10,
      description:
        'Replay checks a suggestion on its own recordings and on at most this many other recordings (newest first), to catch what it would break.',
    }),
    replayMaxSeconds: Type.Number({
      minimum: 1,
      default: 300,
      description:
        'A replay stops after this long (the recordings left are not checked; `complete` says so).',
    }),
    pronunciations: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "Pronunciation dictionary (CMUdict format) that tells a mishearing from a rewrite; default: the dictionary of the model of the engine that heard the text (pocketsphinx's), else espeak-ng.",
      }),
    ),
  },
  { additionalProperties: false, default: {} },
)

export const learningConfig = configSection('learning', 'learning', LearningSchema)

declare module '../config/schema.ts' {
  interface DictumConfig {
    learning: Static<typeof LearningSchema>
  }
}
