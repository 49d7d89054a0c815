/**
 * The `ai` config section: the AI provider that post-processes text, its options and prompts.
 * Composed with the other sections by server/config-schema.ts.
 */
import { type Static, Type } from '@sinclair/typebox'
import { configSection } from '../config/schema.ts'

export const AiSchema = Type.Object(
  {
    provider: Type.String({
      default: 'none',
      minLength: 1,
      description: 'Id of the AI provider, or `none`.',
    }),
    providers: Type.Record(Type.String(), Type.Unknown(), {
      default: {},
      description: 'Options of each provider, by provider id.',
    }),
    timeoutMs: Type.Union([Type.Integer({ minimum: 100 }), Type.Null()], {
      default: null,
      description:
        "Post-processing time limit for every provider (the shorter of it and a provider's own timeoutMs wins); null: each provider's own timeoutMs, 30 s for a provider without one.",
    }),
    appPrompts: Type.Record(Type.String(), Type.String(), {
      default: {},
      description: 'Prompt per application name (dictation `appName`), overriding the provider prompt.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const aiConfig = configSection('postprocess', 'ai', AiSchema)

declare module '../config/schema.ts' {
  interface DictumConfig {
    ai: Static<typeof AiSchema>
  }
}
