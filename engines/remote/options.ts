/** Options of the remote engine (config `speech.engines.remote`) and what follows from them. */
import { type Static, Type } from '@sinclair/typebox'

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1'

/**
 * 600 s of 16-bit 16 kHz mono is 19.2 MB, inside OpenAI's 25 MB upload limit with room for the form fields;
 * 780 s is the most that fits at all.
 */
export const DEFAULT_MAX_AUDIO_SECONDS = 600
const MOST_AUDIO_SECONDS = 780

/**
 * Hosted services whose key dictum reads from the usual environment variable when no key is configured.
 * Nowhere else: a key meant for OpenAI must never be sent to whatever server `baseUrl` names.
 */
const KEY_ENV_BY_HOST: Record<string, string> = {
  'api.openai.com': 'OPENAI_API_KEY',
  'api.groq.com': 'GROQ_API_KEY',
}

export const RemoteOptionsSchema = Type.Object(
  {
    baseUrl: Type.String({
      minLength: 1,
      pattern: '^https?://',
      default: DEFAULT_BASE_URL,
      description: 'Base URL of the OpenAI-compatible API (its `/audio/transcriptions` is called).',
    }),
    model: Type.String({ minLength: 1, default: 'whisper-1', description: 'Model name the server knows.' }),
    apiKey: Type.Optional(Type.String({ minLength: 1, description: 'Sent as `Authorization: Bearer`.' })),
    apiKeyEnv: Type.Optional(
      Type.String({
        minLength: 1,
        pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
        description: 'Environment variable holding the key (default: OPENAI_API_KEY / GROQ_API_KEY by host).',
      }),
    ),
    language: Type.Optional(
      Type.String({ minLength: 2, description: 'ISO 639-1 language sent by default.' }),
    ),
    prompt: Type.Optional(Type.String({ minLength: 1, description: 'Prompt sent by default.' })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    responseFormat: Type.Optional(
      Type.Union([Type.Literal('verbose_json'), Type.Literal('json')], {
        description: 'verbose_json (timings, confidence) unless the model only answers json (gpt-4o-*).',
      }),
    ),
    wordTimestamps: Type.Boolean({
      default: false,
      description: 'Ask for word timings too (timestamp_granularities[]=word; slower on some servers).',
    }),
    timeoutMs: Type.Integer({ minimum: 100, default: 120_000, description: 'Time limit of one attempt.' }),
    retries: Type.Integer({
      minimum: 0,
      maximum: 10,
      default: 2,
      description: 'Retries after 429, 5xx and connection failures.',
    }),
    retryDelayMs: Type.Integer({
      minimum: 0,
      maximum: 60_000,
      default: 500,
      description: 'First backoff delay; doubled on each retry, with jitter.',
    }),
    maxRetryAfterMs: Type.Integer({
      minimum: 0,
      default: 30_000,
      description: 'A Retry-After longer than this is not waited for: the request fails at once.',
    }),
    keywords: Type.Optional(
      Type.Boolean({
        description:
          "Send custom words (the dictionary's and a request's keywords) as keywords[] (default: when model is gpt-transcribe, which takes them; set true for a server that does, e.g. another dictum).",
      }),
    ),
    languages: Type.Optional(
      Type.Boolean({
        description:
          "Send a request's possible languages as languages[] instead of one language (default: when model is gpt-transcribe).",
      }),
    ),
    translate: Type.Boolean({
      default: false,
      description:
        'The server has /audio/translations for this model (OpenAI whisper-1, another dictum with a Whisper model): translations go there.',
    }),
    maxAudioSeconds: Type.Number({
      minimum: 1,
      maximum: MOST_AUDIO_SECONDS,
      default: DEFAULT_MAX_AUDIO_SECONDS,
      description: 'Longest piece uploaded at once; the kernel cuts longer audio at pauses.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export type RemoteOptions = Static<typeof RemoteOptionsSchema>

/** `host[:port]` of the server, as error messages and the display name show it. */
export function serverName(options: RemoteOptions): string {
  try {
    return new URL(options.baseUrl).host
  } catch {
    return options.baseUrl
  }
}

/** The transcription endpoint, or the translation one. */
export function transcriptionsUrl(
  options: RemoteOptions,
  task: 'transcribe' | 'translate' = 'transcribe',
): string {
  const route = task === 'translate' ? 'translations' : 'transcriptions'
  return `${options.baseUrl.replace(/\/+$/, '')}/audio/${route}`
}

/** Models that take OpenAI's `keywords[]` and `languages[]` (OpenAI's reference says gpt-transcribe). */
const GUIDED_MODELS = /^gpt-transcribe/

/** Whether the server's model takes custom words as `keywords[]`. */
export function sendsKeywords(options: RemoteOptions): boolean {
  return options.keywords ?? GUIDED_MODELS.test(options.model)
}

/** Whether the server's model takes `languages[]`. */
export function sendsLanguages(options: RemoteOptions): boolean {
  return options.languages ?? GUIDED_MODELS.test(options.model)
}

/** The environment variable the key is read from, or null. */
export function keyEnvName(options: RemoteOptions): string | null {
  if (options.apiKeyEnv) return options.apiKeyEnv
  try {
    return KEY_ENV_BY_HOST[new URL(options.baseUrl).hostname] ?? null
  } catch {
    return null
  }
}

/** The API key: `apiKey`, else the environment variable, else null (no Authorization header). */
export function resolveApiKey(options: RemoteOptions, env: NodeJS.ProcessEnv = process.env): string | null {
  if (options.apiKey) return options.apiKey
  const name = keyEnvName(options)
  const value = name ? env[name]?.trim() : undefined
  return value ? value : null
}

/** OpenAI's gpt-4o and gpt-transcribe models answer json or text only. */
export function responseFormatOf(options: RemoteOptions): 'verbose_json' | 'json' {
  if (options.responseFormat) return options.responseFormat
  return /^gpt-(4o|transcribe|live)/.test(options.model) ? 'json' : 'verbose_json'
}
