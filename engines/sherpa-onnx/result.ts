/**
 * sherpa-onnx's recognition result, read from the JSON text its addon returns. Its C++ side prints NaN and
 * infinities as bare `nan` / `inf`, which JSON.parse rejects (`… is not valid JSON`): a model whose weights
 * are corrupt yields NaN scores, and that is what the user must be told, not a parser error.
 */
import type { TranscriptToken } from '../../sdk/plugin.ts'
import type { OfflineRecognizerResult } from './native.ts'
import { WORD_MARK } from './tokens.ts'

// A JSON string (kept as it is: a transcript may say "nan"), or a bare nan/inf token outside strings.
const NON_FINITE = /"(?:[^"\\]|\\.)*"|(-?)\b(?:nan|inf(?:inity)?)\b/gi

/** Parses the result; `nan` becomes null, `inf` / `-inf` become ±Infinity (JSON `1e999` parses as such). */
export function parseResult(json: string): OfflineRecognizerResult {
  const text = json.replace(NON_FINITE, (match, minus: string | undefined) => {
    if (match.startsWith('"')) return match
    return /^-?nan$/i.test(match) ? 'null' : `${minus ?? ''}1e999`
  })
  return JSON.parse(text) as OfflineRecognizerResult
}

/**
 * Whether the model's scores are not numbers: a network whose output is NaN picks its tokens at random, so
 * the text is meaningless too (a corrupt model, not an odd recording).
 */
export function hasInvalidScores(result: OfflineRecognizerResult): boolean {
  return (result.ys_log_probs ?? []).some((value) => typeof value !== 'number' || Number.isNaN(value))
}

/**
 * The result's tokens with their log-probabilities (transducer families report one per token), the word
 * mark written as the space it stands for; undefined when the model reports none or the lists disagree.
 */
export function tokensOf(result: OfflineRecognizerResult): TranscriptToken[] | undefined {
  const tokens = result.tokens ?? []
  const logProbs = result.ys_log_probs ?? []
  if (tokens.length === 0 || tokens.length !== logProbs.length) return undefined
  return tokens.map((token, index) => ({
    token: token.replaceAll(WORD_MARK, ' '),
    logprob: logProbs[index] as number,
  }))
}
