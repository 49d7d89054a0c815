/** TypeBox schemas of the OpenAI-compatible routes: transcription replies, the model list, errors. */
import { type Static, Type } from '@sinclair/typebox'
import { EngineCapabilitiesSchema } from '../engines/schemas.ts'

export const RESPONSE_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt'] as const
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number]

export { VerboseTranscriptionSchema } from '../../transcription/schemas.ts'

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])

/**
 * One entry of `GET /v1/models`: OpenAI's four fields, then `kind` and the fields of an OpenAI name (the
 * `engine` it selects), of an engine (as `GET /v1/engines` shows it) or of a catalog model (as
 * `dictum models list --json` shows it).
 */
export const ModelEntrySchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  created: Type.Integer(),
  owned_by: Type.String(),
  kind: Type.Union([Type.Literal('openai'), Type.Literal('engine'), Type.Literal('model')]),
  displayName: Type.String(),
  // Engines
  description: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  reason: Type.Optional(Nullable(Type.String())),
  fix: Type.Optional(Nullable(Type.String())),
  active: Type.Optional(Type.Boolean()),
  builtIn: Type.Optional(Type.Boolean()),
  capabilities: Type.Optional(EngineCapabilitiesSchema),
  // Catalog models
  family: Type.Optional(Type.String()),
  engine: Type.Optional(Type.String()),
  languages: Type.Optional(Type.Array(Type.String())),
  customWords: Type.Optional(Type.Boolean()),
  archive: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  sizeBytes: Type.Optional(Type.Integer()),
  sizeExact: Type.Optional(Type.Boolean()),
  sha256: Type.Optional(Nullable(Type.String())),
  license: Type.Optional(Type.String()),
  installed: Type.Optional(Type.Boolean()),
  path: Type.Optional(Nullable(Type.String())),
  sizeOnDisk: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
})

export type ModelEntry = Static<typeof ModelEntrySchema>

export const ModelListSchema = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(ModelEntrySchema),
})

export const OpenAiErrorSchema = Type.Object({
  error: Type.Object(
    {
      message: Type.String(),
      type: Type.String(),
      param: Nullable(Type.String()),
      code: Nullable(Type.String()),
    },
    { additionalProperties: true },
  ),
})

/** The multipart form of the transcription and translation routes, as the OpenAPI document shows it. */
export const TranscriptionFormSchema = Type.Object(
  {
    file: Type.String({ format: 'binary', description: 'The audio file (one file part).' }),
    model: Type.String({
      description:
        'An engine id, an installed catalog model, or an OpenAI name such as gpt-transcribe (the active one).',
    }),
    language: Type.Optional(Type.String()),
    prompt: Type.Optional(Type.String()),
    response_format: Type.Optional(Type.Union(RESPONSE_FORMATS.map((f) => Type.Literal(f)))),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    'timestamp_granularities[]': Type.Optional(
      Type.Array(Type.Union([Type.Literal('word'), Type.Literal('segment')])),
    ),
    'keywords[]': Type.Optional(Type.Array(Type.String(), { description: 'Custom words of this request.' })),
    'languages[]': Type.Optional(
      Type.Array(Type.String(), { description: 'Languages the audio may be in.' }),
    ),
    'include[]': Type.Optional(Type.Array(Type.Literal('logprobs'))),
    chunking_strategy: Type.Optional(
      Type.String({
        description: '"auto", or a server_vad object (JSON, or chunking_strategy[field] fields).',
      }),
    ),
    stream: Type.Optional(Type.Boolean()),
  },
  { required: ['file', 'model'] },
)
