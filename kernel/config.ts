/**
 * The kernel's config sections: `speech` (the selected engine, each engine's options, the engine
 * processes' concurrency and limits) and `plugins` (the engine and provider modules discovery loads).
 * Composed with the other sections by server/config-schema.ts.
 */
import { type Static, Type } from '@sinclair/typebox'
import { configSection } from '../config/schema.ts'

export const SpeechSchema = Type.Object(
  {
    engine: Type.String({ default: 'pocketsphinx', minLength: 1, description: 'Id of the selected engine.' }),
    engines: Type.Record(Type.String(), Type.Unknown(), {
      default: {},
      description: 'Options of each engine, by engine id.',
    }),
    concurrency: Type.Union([Type.Integer({ minimum: 1, maximum: 64 }), Type.Literal('auto')], {
      default: 'auto',
      errorMessage: 'Expected "auto" or an integer from 1 to 64',
      description:
        'Transcriptions one engine runs at once (each is an engine process with its own model). "auto": one per core, as many as the free memory holds at the engine\'s estimate per process.',
    }),
    preload: Type.Boolean({
      default: true,
      description:
        'Load the selected engine once the service listens (and when an edit selects another), so that the first dictation does not wait for its model (one engine process from the start). false: at its first use.',
    }),
    timeoutMs: Type.Integer({
      minimum: 100,
      default: 300_000,
      description: 'A transcription of one piece taking longer is stopped (the engine process is restarted).',
    }),
    loadTimeoutMs: Type.Integer({ minimum: 100, default: 120_000, description: 'Model load time limit.' }),
    memoryLimitMb: Type.Union([Type.Integer({ minimum: 128 }), Type.Null()], {
      default: null,
      description:
        "Memory one engine process may use, in MB; over it the process is stopped and the request fails. null: half of the machine's memory.",
    }),
  },
  { additionalProperties: false, default: {} },
)

export const PluginsSchema = Type.Array(Type.String({ minLength: 1 }), {
  default: [],
  description: 'Extra engine/provider modules: paths (relative to the config file) or package names.',
})

export const speechConfig = configSection('kernel', 'speech', SpeechSchema)
export const pluginsConfig = configSection('kernel', 'plugins', PluginsSchema)

declare module '../config/schema.ts' {
  interface DictumConfig {
    speech: Static<typeof SpeechSchema>
    plugins: Static<typeof PluginsSchema>
  }
}
