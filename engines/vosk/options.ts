/** Options of the Vosk engine (config `speech.engines.vosk`). */
import { type Static, Type } from '@sinclair/typebox'

export const DEFAULT_MODEL = 'vosk-model-small-en-us-0.15'

export const VoskOptionsSchema = Type.Object(
  {
    model: Type.String({
      minLength: 1,
      default: DEFAULT_MODEL,
      description: 'Catalog model id (`dictum models list`). Ignored when modelDir is set.',
    }),
    modelDir: Type.Optional(
      Type.String({ minLength: 1, description: 'Folder of your own Vosk model (absolute path).' }),
    ),
    language: Type.Optional(
      Type.String({ minLength: 2, description: 'Language of the modelDir model (ISO 639-1).' }),
    ),
    libraryPath: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'libvosk shared library; default: the one the `vosk` npm package ships.',
      }),
    ),
    maxAudioSeconds: Type.Number({
      minimum: 1,
      maximum: 3600,
      default: 120,
      description: 'Longest piece per call; the kernel cuts longer audio at pauses.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export type VoskOptions = Static<typeof VoskOptionsSchema>
