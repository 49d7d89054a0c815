/** The form fields of `POST /v1/audio/transcriptions`, checked as OpenAI checks them. */
import { errors } from '../../errors/catalogue.ts'
import type { VadTuning } from '../../vad/vad-segmenter.ts'
import {
  parseChunking,
  parseInclude,
  parseKeywords,
  parseLanguages,
  refuseDiarization,
} from './request-fields.ts'
import { RESPONSE_FORMATS, type ResponseFormat } from './schemas.ts'

export interface TranscriptionParams {
  format: ResponseFormat
  language?: string
  prompt?: string
  /** Accepted for compatibility and echoed in verbose_json; dictum's engines decode deterministically. */
  temperature: number
  words: boolean
  /** The `model` field as sent (model-choice.ts decides what it selects). */
  model?: string
  /** `stream=true`: the transcript as server-sent events (stream.ts). */
  stream: boolean
  /** `keywords[]`: this request's custom words (request-fields.ts). */
  keywords: string[]
  /** `languages[]`: the languages the audio may be in. */
  languages?: string[]
  /** `include[]=logprobs`. */
  logprobs: boolean
  /** `chunking_strategy`: VAD values to cut the file with, or null (the usual cutting). */
  chunking: VadTuning | null
}

/** The formats a streamed transcription takes (its events carry text only), as OpenAI's streaming models. */
const STREAM_FORMATS: readonly ResponseFormat[] = ['json', 'text']

function invalid(param: string, detail: string) {
  return errors.INVALID_REQUEST(detail, { extra: { param } })
}

function single(fields: Map<string, string[]>, name: string): string | undefined {
  const value = fields.get(name)?.[0]?.trim()
  return value ? value : undefined
}

export function transcriptionParams(fields: Map<string, string[]>): TranscriptionParams {
  refuseDiarization(fields)
  const format = (single(fields, 'response_format') ?? 'json') as ResponseFormat
  if (!RESPONSE_FORMATS.includes(format)) {
    throw invalid('response_format', `response_format must be one of ${RESPONSE_FORMATS.join(', ')}.`)
  }
  const rawTemperature = single(fields, 'temperature')
  const temperature = rawTemperature === undefined ? 0 : Number(rawTemperature)
  if (!Number.isFinite(temperature) || temperature < 0 || temperature > 1) {
    throw invalid('temperature', 'temperature must be a number from 0 to 1.')
  }
  const stream = single(fields, 'stream') === 'true'
  if (stream && !STREAM_FORMATS.includes(format)) {
    throw invalid(
      'response_format',
      `response_format '${format}' is not compatible with stream=true. Use 'json' or 'text' instead.`,
    )
  }
  const granularities = fields.get('timestamp_granularities') ?? []
  const unknown = granularities.find((g) => g !== 'word' && g !== 'segment')
  if (unknown !== undefined) {
    throw invalid('timestamp_granularities', 'timestamp_granularities[] takes "word" and "segment".')
  }
  const language = single(fields, 'language')
  if (language !== undefined && !/^[A-Za-z]{2,3}([-_][A-Za-z0-9]+)?$/.test(language)) {
    throw invalid('language', 'language must be an ISO-639-1 code such as "en".')
  }
  const model = single(fields, 'model')
  const prompt = single(fields, 'prompt')
  const languages = parseLanguages(fields.get('languages') ?? [], language)
  return {
    format,
    temperature,
    words: granularities.includes('word'),
    stream,
    keywords: parseKeywords(fields.get('keywords') ?? []),
    logprobs: parseInclude(fields.get('include') ?? [], format),
    chunking: parseChunking(fields),
    ...(languages ? { languages } : {}),
    ...(language ? { language: language.toLowerCase() } : {}),
    ...(prompt ? { prompt } : {}),
    ...(model ? { model } : {}),
  }
}
