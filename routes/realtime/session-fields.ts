/**
 * The session fields OpenAI's current SDK (openai 7.x) added to a transcription session, read and checked:
 * `keywords` and `languages` (with the file route's rules: routes/openai/request-fields.ts), `include`
 * (logprobs), `noise_reduction` (refused: dictum has no denoiser) and `semantic_vad` (dictum's VAD, the
 * silence by eagerness). What each does is in docs/realtime.md. A bad value throws a {@link Problem}, which
 * refuses the whole update; no message quotes what the client sent.
 */
import { isDictumError } from '../../errors/catalogue.ts'
import type { ServerVad } from '../../live/types.ts'
import {
  MAX_KEYWORD_CHARS,
  MAX_KEYWORDS,
  MAX_LANGUAGES,
  parseKeywords,
  parseLanguages,
} from '../openai/request-fields.ts'

type Json = Record<string, unknown>

/** A field that cannot be applied: OpenAI's error code, what is wrong, and the field's path. */
export class Problem extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly param: string | null,
  ) {
    super(detail)
  }
}

/** OpenAI's `semantic_vad` eagerness. */
export type Eagerness = 'low' | 'medium' | 'high' | 'auto'

/**
 * `semantic_vad` on dictum's VAD: the silence that ends a turn by eagerness, a quarter of the longest wait
 * OpenAI gives each (8 s, 4 s, 2 s; `auto` is `medium`). dictum has no model of whether a sentence is
 * finished, so the wait is fixed.
 */
export const SEMANTIC_SILENCE_MS: Record<Eagerness, number> = {
  low: 2000,
  medium: 1000,
  high: 500,
  auto: 1000,
}

/** The session's turn detection: `server_vad`, or `semantic_vad` (its eagerness kept to show it back). */
export type RealtimeTurnDetection = ServerVad & { eagerness?: Eagerness }

/** The one value of OpenAI's `include`. */
export const INCLUDE_LOGPROBS = 'item.input_audio_transcription.logprobs'

/**
 * OpenAI's `keywords`, with the file route's rules and bounds (routes/openai/request-fields.ts): refused
 * whole when one entry is not one word or phrase; the error names the entry by its index and, as every
 * realtime error, quotes nothing the client sent.
 */
export function readKeywords(value: unknown, param: string): string[] {
  if (value === null) return []
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string')) {
    throw new Problem('invalid_type', `${param} must be an array of strings.`, param)
  }
  if (value.length > MAX_KEYWORDS) {
    throw new Problem('invalid_value', `${param} takes at most ${MAX_KEYWORDS} entries.`, param)
  }
  for (const [index, entry] of (value as string[]).entries()) {
    try {
      parseKeywords([entry])
    } catch (err) {
      if (!isDictumError(err)) throw err
      throw new Problem(
        'invalid_value',
        `${param}[${index}] must be one word or phrase (not blank, no <, >, carriage return, line feed or control characters, at most ${MAX_KEYWORD_CHARS} characters).`,
        `${param}[${index}]`,
      )
    }
  }
  return parseKeywords(value as string[])
}

/** OpenAI's `languages`, with the file route's rules (ISO 639-1 codes, bounded, lower-cased, each once). */
export function readLanguages(value: unknown, param: string): string[] | undefined {
  const list = stringList(value, param, MAX_LANGUAGES)
  try {
    return parseLanguages(list, undefined)
  } catch (err) {
    if (!isDictumError(err)) throw err
    throw new Problem('invalid_value', `${param} must hold ISO-639-1 codes such as "en".`, param)
  }
}

export function readInclude(value: unknown, param: string): boolean | undefined {
  if (value === undefined) return undefined
  const include = value === null ? [] : stringList(value, param, 8)
  for (const [index, entry] of include.entries()) {
    if (entry !== INCLUDE_LOGPROBS) {
      throw new Problem(
        'invalid_value',
        `${param}[${index}] must be "${INCLUDE_LOGPROBS}".`,
        `${param}[${index}]`,
      )
    }
  }
  return include.length > 0
}

/** null (or absent) is the one value: dictum has no denoiser, and says so rather than ignore the request. */
export function readNoiseReduction(value: unknown, param: string): void {
  if (value === undefined || value === null) return
  throw new Problem(
    'unsupported_value',
    `${param}: dictum has no noise reduction; set it to null or leave it out (docs/realtime.md).`,
    param,
  )
}

function stringList(value: unknown, param: string, max: number): string[] {
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string')) {
    throw new Problem('invalid_type', `${param} must be an array of strings.`, param)
  }
  if (value.length > max) throw new Problem('invalid_value', `${param} has more than ${max} entries.`, param)
  for (const [index, entry] of (value as string[]).entries()) {
    if (entry.length === 0 || entry.length > 64) {
      throw new Problem(
        'invalid_value',
        `${param}[${index}] must be 1 to 64 characters.`,
        `${param}[${index}]`,
      )
    }
  }
  return value as string[]
}

/** `semantic_vad`: dictum's VAD at OpenAI's server_vad threshold and padding, the silence by eagerness. */
export function readSemanticVad(td: Json, param: string, defaults: ServerVad): RealtimeTurnDetection {
  const eagerness = td.eagerness ?? 'auto'
  if (typeof eagerness !== 'string' || !Object.hasOwn(SEMANTIC_SILENCE_MS, eagerness)) {
    throw new Problem(
      'invalid_value',
      `${param}.eagerness must be "low", "medium", "high" or "auto".`,
      `${param}.eagerness`,
    )
  }
  return {
    ...defaults,
    silenceDurationMs: SEMANTIC_SILENCE_MS[eagerness as Eagerness],
    eagerness: eagerness as Eagerness,
  }
}
