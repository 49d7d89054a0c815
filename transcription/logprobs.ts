/**
 * The engine's certainty per token in OpenAI's `logprobs` shape, `[{token, logprob, bytes}]`: one module for
 * the file route's `include[]=logprobs` and the realtime session's `item.input_audio_transcription.logprobs`,
 * so both read the same engine data the same way.
 *
 * Where the numbers come from (the engine's `logprobs` capability):
 * - an engine result's own `tokens` (sherpa-onnx transducers: each token's log-probability from the decoder);
 * - else its words with a `confidence` (pocketsphinx's lattice posteriors, Vosk's word confidences): one token
 *   per word, `logprob = ln(confidence)`.
 * The tokens are the engine's, before dictionary replacements; concatenated they spell the engine's text
 * (a space before every word but the first, a space between pieces of a long file).
 */
import type { EngineTranscribeResult, TranscriptToken } from '../kernel/contracts/engine.ts'

/** One entry of OpenAI's `logprobs`. `bytes` is the token's UTF-8 encoding. */
export interface Logprob {
  token: string
  logprob: number
  bytes: number[]
}

/** A probability of 0 would be a log of -Infinity, which JSON cannot carry: this is the floor. */
export const MIN_LOGPROB = -100

/** Natural log of a 0..1 probability, floored at {@link MIN_LOGPROB} (non-numbers count as 0). */
export function probabilityToLogprob(probability: number): number {
  if (!Number.isFinite(probability) || probability <= 0) return MIN_LOGPROB
  return Math.max(MIN_LOGPROB, Math.log(Math.min(1, probability)))
}

/** A log-probability the engine gave, made finite and <= 0. */
function finiteLogprob(logprob: number): number {
  if (Number.isNaN(logprob)) return MIN_LOGPROB
  return Math.min(0, Math.max(MIN_LOGPROB, logprob))
}

/**
 * The tokens of one engine result (a piece of a file, or one live utterance): its `tokens`, else one token
 * per word when every word has a confidence, else null (the engine gives no certainty for this result).
 * A result without text has no tokens ([]).
 */
export function resultTokens(result: EngineTranscribeResult): TranscriptToken[] | null {
  if (result.text.trim() === '') return []
  if (result.tokens && result.tokens.length > 0) {
    const tokens = result.tokens.map((t) => ({ token: t.token, logprob: finiteLogprob(t.logprob) }))
    const first = tokens[0] as TranscriptToken
    tokens[0] = { ...first, token: first.token.trimStart() }
    return tokens.filter((t) => t.token !== '')
  }
  const words = (result.words ?? []).filter((w) => w.word.trim() !== '')
  if (words.length === 0 || words.some((w) => typeof w.confidence !== 'number')) return null
  return words.map((w, index) => ({
    token: index === 0 ? w.word.trim() : ` ${w.word.trim()}`,
    logprob: probabilityToLogprob(w.confidence as number),
  }))
}

/**
 * The tokens of consecutive results as one list (a space before each later result's first token), or null
 * when any result that has text has no certainty: a partial list would not spell the text.
 */
export function joinTokens(results: readonly EngineTranscribeResult[]): TranscriptToken[] | null {
  const joined: TranscriptToken[] = []
  for (const result of results) {
    const tokens = resultTokens(result)
    if (tokens === null) return null
    for (const [index, token] of tokens.entries()) {
      const spaced = index === 0 && joined.length > 0 && !/^\s/.test(token.token)
      joined.push(spaced ? { ...token, token: ` ${token.token}` } : token)
    }
  }
  return joined
}

/** Tokens in OpenAI's shape. */
export function toLogprobs(tokens: readonly TranscriptToken[]): Logprob[] {
  return tokens.map((t) => ({ token: t.token, logprob: t.logprob, bytes: [...Buffer.from(t.token, 'utf8')] }))
}

/** The ids of the engines that can answer logprobs (for the error that names them). */
export function enginesWithLogprobs(
  engines: readonly { id: string; capabilities: { logprobs?: boolean } }[],
): string[] {
  return engines.filter((e) => e.capabilities.logprobs === true).map((e) => e.id)
}
