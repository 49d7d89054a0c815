/**
 * The `audio` config section: the ffmpeg binary and the longest audio accepted.
 * Composed with the other sections by server/config-schema.ts.
 */
import { type Static, Type } from '@sinclair/typebox'
import { configSection } from '../config/schema.ts'

export const AudioSchema = Type.Object(
  {
    ffmpegPath: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'ffmpeg binary for non-WAV formats (else env FFMPEG_PATH, ffmpeg-static, PATH).',
    }),
    maxSeconds: Type.Number({
      exclusiveMinimum: 0,
      default: 7200,
      description: 'Longest audio accepted, in seconds.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const audioConfig = configSection('audio', 'audio', AudioSchema)

declare module '../config/schema.ts' {
  interface DictumConfig {
    audio: Static<typeof AudioSchema>
  }
}
