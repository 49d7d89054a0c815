/**
 * The `vad` config section: cutting long audio at pauses with Silero VAD.
 * Composed with the other sections by server/config-schema.ts.
 */
import { type Static, Type } from '@sinclair/typebox'
import { configSection } from '../config/schema.ts'

export const VadSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Cut long audio at pauses with Silero VAD.' }),
    model: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'Path of silero_vad.onnx (else the installed catalog model `silero-vad`).',
    }),
    threshold: Type.Number({ minimum: 0.05, maximum: 0.95, default: 0.5 }),
    minSilenceSeconds: Type.Number({ minimum: 0.05, maximum: 5, default: 0.5 }),
    minSpeechSeconds: Type.Number({ minimum: 0.05, maximum: 5, default: 0.25 }),
    maxSegmentSeconds: Type.Union([Type.Number({ minimum: 1, maximum: 600 }), Type.Null()], {
      default: null,
      description: 'Longest piece sent to the engine (default: the engine’s own window).',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const vadConfig = configSection('vad', 'vad', VadSchema)

declare module '../config/schema.ts' {
  interface DictumConfig {
    vad: Static<typeof VadSchema>
  }
}
