/** TypeBox schemas of GET /v1/engines (extension). */
import { Type } from '@sinclair/typebox'

export const EngineCapabilitiesSchema = Type.Object({
  customWords: Type.Boolean(),
  wordTimestamps: Type.Boolean(),
  segmentTimestamps: Type.Boolean(),
  languages: Type.Array(Type.String()),
  maxAudioSeconds: Type.Union([Type.Number(), Type.Null()]),
  streaming: Type.Boolean(),
  /** Results carry per-token or per-word certainty (OpenAI's `include[]=logprobs`). */
  logprobs: Type.Boolean(),
  /** The model translates speech into English (`POST /v1/audio/translations`). */
  translate: Type.Boolean(),
})

export const EngineStatusSchema = Type.Object({
  id: Type.String(),
  displayName: Type.String(),
  description: Type.String(),
  status: Type.Union(['discovered', 'loading', 'ready', 'unavailable', 'failed'].map((s) => Type.Literal(s))),
  reason: Type.Union([Type.String(), Type.Null()]),
  fix: Type.Union([Type.String(), Type.Null()]),
  capabilities: EngineCapabilitiesSchema,
  active: Type.Boolean(),
  builtIn: Type.Boolean(),
  concurrency: Type.Integer(),
  concurrencyReason: Type.String(),
})

/** Whether the engines are also served over Wyoming (config/wyoming-access.ts). */
export const WyomingAccessSchema = Type.Object({
  state: Type.Union(['disabled', 'enabled', 'refused'].map((s) => Type.Literal(s))),
  reason: Type.Union([Type.String(), Type.Null()]),
})

export const EngineListSchema = Type.Object({
  active: Type.String(),
  count: Type.Integer(),
  items: Type.Array(EngineStatusSchema),
  wyoming: WyomingAccessSchema,
})
