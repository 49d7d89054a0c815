/**
 * The `realtime` config section: the bounds of live dictation sessions (realtime WebSocket, Wyoming,
 * streamed transcriptions).
 * Composed with the other sections by server/config-schema.ts.
 */
import { type Static, Type } from '@sinclair/typebox'
import { configSection } from '../config/schema.ts'

export const RealtimeSchema = Type.Object(
  {
    maxSessions: Type.Integer({
      minimum: 1,
      default: 8,
      description:
        'Live dictation sessions open at once (realtime WebSocket, Wyoming, streamed transcriptions); more are refused.',
    }),
    idleTimeoutMs: Type.Integer({
      minimum: 1000,
      default: 30_000,
      description: 'A live session that receives no audio or event for this long is closed.',
    }),
    maxUtteranceSeconds: Type.Number({
      exclusiveMinimum: 0,
      default: 120,
      description: 'Longest utterance of a live session: speech going on past it is committed there.',
    }),
    maxBacklogSeconds: Type.Number({
      minimum: 1,
      default: 30,
      description:
        'Committed audio of a live session waiting behind the item being transcribed, at most (seconds): at half of it the client gets a warning (error SESSION_BACKLOG, not fatal), past it the session is closed (fatal SESSION_BACKLOG).',
    }),
    maxFrameBytes: Type.Integer({
      minimum: 1024,
      default: 1_048_576,
      description: 'Largest message (WebSocket frame, Wyoming event) a live session accepts.',
    }),
    maxQueuedAudioSeconds: Type.Number({
      minimum: 1,
      default: 60,
      description:
        'Audio a live session has received and not yet processed (converted, resampled, run through the VAD), at most: a client sending faster gets an error (AUDIO_TOO_FAST) and the session is closed.',
    }),
    maxSendQueueBytes: Type.Integer({
      minimum: 65_536,
      default: 1_048_576,
      description:
        'Server events queued for a realtime client that does not read them, at most: past it the connection is dropped.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const realtimeConfig = configSection('live', 'realtime', RealtimeSchema)

declare module '../config/schema.ts' {
  interface DictumConfig {
    realtime: Static<typeof RealtimeSchema>
  }
}
