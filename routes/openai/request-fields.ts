/**
 * The fields OpenAI's current API added to `POST /v1/audio/transcriptions` (the `openai` 7.x SDK sends them
 * as `keywords[]`, `languages[]`, `include[]`, `chunking_strategy` or `chunking_strategy[type]`…,
 * `known_speaker_names[]`, `known_speaker_references[]`), checked as OpenAI checks them. What dictum does
 * with each is in docs/openai-api.md.
 */

import { errors } from '../../errors/catalogue.ts'
import type { VadTuning } from '../../vad/vad-segmenter.ts'
import { openaiErrors } from './error-codes.ts'

/** Bounds named where the data enters: a request's keywords join the engine's hotword list. */
export const MAX_KEYWORDS = 100
export const MAX_KEYWORD_CHARS = 100
export const MAX_LANGUAGES = 20

const LANGUAGE_CODE = /^[A-Za-z]{2,3}([-_][A-Za-z0-9]+)?$/

function invalid(param: string, detail: string) {
  return errors.INVALID_REQUEST(detail, { extra: { param } })
}

/** Each keyword one word or phrase: no markup, no line breaks (as OpenAI refuses them), bounded. */
export function parseKeywords(values: readonly string[]): string[] {
  if (values.length > MAX_KEYWORDS) {
    throw invalid('keywords', `keywords takes at most ${MAX_KEYWORDS} entries (${values.length} were sent).`)
  }
  const keywords: string[] = []
  for (const [index, raw] of values.entries()) {
    const shown = JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw)
    const entry = `keywords[${index}] ${shown}`
    if (/[<>\r\n]/.test(raw)) {
      throw invalid('keywords', `${entry} holds "<", ">" or a line break: send one word or phrase per entry.`)
    }
    const keyword = raw.trim().replace(/\s+/g, ' ')
    if (keyword === '' || /\p{Cc}/u.test(keyword)) {
      throw invalid('keywords', `${entry} is empty or holds control characters.`)
    }
    if (keyword.length > MAX_KEYWORD_CHARS) {
      throw invalid('keywords', `${entry} is longer than ${MAX_KEYWORD_CHARS} characters.`)
    }
    if (!keywords.some((k) => k.toLowerCase() === keyword.toLowerCase())) keywords.push(keyword)
  }
  return keywords
}

/** `languages[]`: ISO 639-1 codes, lower case; never together with `language`. */
export function parseLanguages(
  values: readonly string[],
  language: string | undefined,
): string[] | undefined {
  const sent = values.map((v) => v.trim()).filter((v) => v !== '')
  if (sent.length === 0) return undefined
  if (language !== undefined) {
    throw invalid('languages', 'send either language or languages, not both.')
  }
  if (sent.length > MAX_LANGUAGES) {
    throw invalid('languages', `languages takes at most ${MAX_LANGUAGES} codes.`)
  }
  const bad = sent.find((code) => !LANGUAGE_CODE.test(code))
  if (bad !== undefined) {
    throw invalid(
      'languages',
      `languages entry ${JSON.stringify(bad)} is not an ISO-639-1 code such as "en".`,
    )
  }
  return [...new Set(sent.map((code) => code.toLowerCase()))]
}

/** `include[]`: OpenAI's only value is `logprobs`, given with `response_format=json` only. */
export function parseInclude(values: readonly string[], format: string): boolean {
  const unknown = values.find((v) => v !== 'logprobs')
  if (unknown !== undefined)
    throw invalid('include', `include[] takes "logprobs" (not ${JSON.stringify(unknown)}).`)
  const logprobs = values.includes('logprobs')
  if (logprobs && format !== 'json') {
    throw invalid('include', 'include[]=logprobs works with response_format "json" only.')
  }
  return logprobs
}

/** A number field of the `server_vad` object, within its range. */
function vadNumber(raw: unknown, name: string, min: number, max: number): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined
  const value = Number(raw)
  if (!Number.isFinite(value) || value < min || value > max) {
    throw invalid('chunking_strategy', `chunking_strategy.${name} must be a number from ${min} to ${max}.`)
  }
  return value
}

/**
 * `chunking_strategy`: absent or `null`: the file is cut as always (whole when it fits the engine, else at
 * pauses). `auto`: cut with dictum's VAD as configured. A `server_vad` object (as JSON text, or the SDK's
 * `chunking_strategy[type]`… fields): cut with those values. Returns the VAD tuning, or null when absent.
 */
export function parseChunking(fields: Map<string, string[]>): VadTuning | null {
  const whole = fields.get('chunking_strategy')?.[0]?.trim()
  let object: Record<string, unknown> | null = null
  if (whole !== undefined && whole !== '' && whole !== 'null') {
    if (whole === 'auto') return {}
    try {
      object = JSON.parse(whole) as Record<string, unknown>
    } catch {
      object = null
    }
    if (object === null || typeof object !== 'object' || Array.isArray(object)) {
      throw invalid(
        'chunking_strategy',
        'chunking_strategy must be "auto" or a {"type": "server_vad"} object.',
      )
    }
  } else {
    const prefix = 'chunking_strategy['
    const parts = [...fields].filter(([name]) => name.startsWith(prefix) && name.endsWith(']'))
    if (parts.length === 0) return null
    object = Object.fromEntries(parts.map(([name, values]) => [name.slice(prefix.length, -1), values[0]]))
  }
  if (object.type !== 'server_vad') {
    throw invalid('chunking_strategy', 'chunking_strategy must be "auto" or a {"type": "server_vad"} object.')
  }
  const unknown = Object.keys(object).find(
    (k) => !['type', 'threshold', 'silence_duration_ms', 'prefix_padding_ms'].includes(k),
  )
  if (unknown !== undefined)
    throw invalid('chunking_strategy', `chunking_strategy has no field "${unknown}".`)
  const threshold = vadNumber(object.threshold, 'threshold', 0, 1)
  const silence = vadNumber(object.silence_duration_ms, 'silence_duration_ms', 0, 10_000)
  const padding = vadNumber(object.prefix_padding_ms, 'prefix_padding_ms', 0, 10_000)
  return {
    ...(threshold !== undefined ? { threshold } : {}),
    ...(silence !== undefined ? { minSilenceSeconds: silence / 1000 } : {}),
    ...(padding !== undefined ? { paddingSeconds: padding / 1000 } : {}),
  }
}

/** Diarization: refused until dictum tells speakers apart, never silently ignored. */
export function refuseDiarization(fields: Map<string, string[]>): void {
  for (const name of ['known_speaker_names', 'known_speaker_references']) {
    if ((fields.get(name) ?? []).length > 0) {
      throw openaiErrors.DIARIZATION_UNSUPPORTED(`${name}[] needs speaker diarization`, {
        extra: { param: name },
      })
    }
  }
  if (fields.get('response_format')?.[0]?.trim() === 'diarized_json') {
    throw openaiErrors.DIARIZATION_UNSUPPORTED('response_format "diarized_json" needs speaker diarization', {
      extra: { param: 'response_format' },
    })
  }
}
