/**
 * The `dictation` config section: editing by voice.
 * Composed with the other sections by server/config-schema.ts.
 */
import { type Static, Type } from '@sinclair/typebox'
import { configSection } from '../config/schema.ts'

export const DictationSchema = Type.Object(
  {
    commands: Type.Boolean({
      default: true,
      description:
        'Editing by voice on every dictation (POST /v1/dictate, dictum dictate, live dictation sessions): spoken punctuation and layout ("comma", "new line"), "scratch that" / "delete that", "cap <word>", "all caps <word>", "no space", "literally <word>" (docs/desktop.md). History keeps the raw text beside the result; transcription routes never apply it.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const dictationConfig = configSection('dictation', 'dictation', DictationSchema)

declare module '../config/schema.ts' {
  interface DictumConfig {
    dictation: Static<typeof DictationSchema>
  }
}
