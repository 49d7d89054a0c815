/**
 * The `history` config section: keeping dictations and their recordings.
 * Composed with the other sections by server/config-schema.ts.
 */
import { type Static, Type } from '@sinclair/typebox'
import { configSection } from '../config/schema.ts'

export const HistorySchema = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Keep a history of dictations.' }),
    maxEntries: Type.Integer({
      minimum: 1,
      default: 10_000,
      description: 'Oldest entries beyond this are removed.',
    }),
    recordTranscribe: Type.Boolean({ default: false, description: 'Also record /v1/transcribe results.' }),
    keepAudio: Type.Boolean({
      default: true,
      description:
        'Keep the audio of each dictation (/v1/dictate, live utterances, `dictum dictate`) with its entry, as FLAC: it plays back and lets corrections be replayed (learning).',
    }),
    audioRetentionDays: Type.Integer({
      minimum: 0,
      default: 30,
      description:
        'Kept audio older than this many days is deleted (the entry stays); 0 keeps it until the entry goes.',
    }),
    audioMaxMb: Type.Number({
      minimum: 0,
      default: 1024,
      description:
        'The kept audio of all entries together stays under this many MB: the oldest recordings go first.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const historyConfig = configSection('history', 'history', HistorySchema)

declare module '../config/schema.ts' {
  interface DictumConfig {
    history: Static<typeof HistorySchema>
  }
}
