/** Options of the sherpa-onnx engine (config `speech.engines.sherpa-onnx`). */
import { type Static, Type } from '@sinclair/typebox'

export const FAMILIES = [
  'nemo-transducer',
  'zipformer-transducer',
  'streaming-zipformer-transducer',
  'nemo-ctc',
  'whisper',
  'moonshine',
  'sense-voice',
] as const

export type SherpaFamily = (typeof FAMILIES)[number]

/** Families whose decoder can be biased with hotwords (under modified_beam_search). */
export const TRANSDUCER_FAMILIES: readonly SherpaFamily[] = ['nemo-transducer', 'zipformer-transducer']

/**
 * Families of streaming (online) models: the engine builds sherpa-onnx's OnlineRecognizer for them, which
 * decodes audio as it arrives (live partials), and transcribes whole pieces through it too.
 */
export const STREAMING_FAMILIES: readonly SherpaFamily[] = ['streaming-zipformer-transducer']

export const DEFAULT_MODEL = 'parakeet-tdt-0.6b-v2'

const FileName = Type.String({ minLength: 1, pattern: '^[^/\\\\]+$' })

export const FilesSchema = Type.Object(
  {
    encoder: Type.Optional(FileName),
    decoder: Type.Optional(FileName),
    joiner: Type.Optional(FileName),
    tokens: Type.Optional(FileName),
    model: Type.Optional(FileName),
    preprocessor: Type.Optional(FileName),
    uncachedDecoder: Type.Optional(FileName),
    cachedDecoder: Type.Optional(FileName),
    bpeVocab: Type.Optional(FileName),
  },
  {
    additionalProperties: false,
    description: 'File names inside modelDir, where they differ from the usual ones.',
  },
)

export const SherpaOnnxOptionsSchema = Type.Object(
  {
    model: Type.String({
      minLength: 1,
      default: DEFAULT_MODEL,
      description: 'Catalog model id (`dictum models list`). Ignored when modelDir is set.',
    }),
    modelDir: Type.Optional(
      Type.String({ minLength: 1, description: 'Folder of your own sherpa-onnx model (absolute path).' }),
    ),
    family: Type.Optional(
      Type.Union(
        FAMILIES.map((f) => Type.Literal(f)),
        { description: 'Model family of modelDir (required with modelDir).' },
      ),
    ),
    files: Type.Optional(FilesSchema),
    languages: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'Languages of the modelDir model (ISO 639-1).',
      }),
    ),
    numThreads: Type.Integer({ minimum: 1, maximum: 64, default: 2 }),
    provider: Type.Literal('cpu', { default: 'cpu' }),
    decodingMethod: Type.Optional(
      Type.Union([Type.Literal('greedy_search'), Type.Literal('modified_beam_search')], {
        description: 'Transducers: modified_beam_search (default, needed for custom words) or greedy_search.',
      }),
    ),
    maxActivePaths: Type.Integer({ minimum: 1, maximum: 64, default: 4 }),
    hotwordsScore: Type.Number({
      exclusiveMinimum: 0,
      maximum: 20,
      default: 1.5,
      description: 'Boost of a custom word without a weight.',
    }),
    language: Type.Optional(
      Type.String({ minLength: 1, description: 'Whisper / SenseVoice language code.' }),
    ),
    task: Type.Union([Type.Literal('transcribe'), Type.Literal('translate')], { default: 'transcribe' }),
    useItn: Type.Boolean({ default: true, description: 'SenseVoice: inverse text normalisation.' }),
    maxAudioSeconds: Type.Optional(
      Type.Number({ minimum: 1, maximum: 3600, description: 'Longest piece per call (default per family).' }),
    ),
  },
  { additionalProperties: false, default: {} },
)

export type SherpaOnnxOptions = Static<typeof SherpaOnnxOptionsSchema>
