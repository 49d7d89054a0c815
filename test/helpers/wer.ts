/**
 * Word error rate for tests and benchmarks: both texts are normalised (lower case, punctuation and
 * apostrophes removed, whitespace collapsed), then the word-level Levenshtein distance is divided by the
 * number of reference words. The alignment is dictum's own (learning/alignment.ts, which replay reports
 * WER with), so tests and benchmarks score text the way the product does.
 */
import { wordErrorRate as corpusRate, wordEdits, words } from '../../learning/alignment.ts'

export { wordEdits }

export function normaliseWords(text: string): string[] {
  return words(text)
}

export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = words(reference)
  if (ref.length === 0) return words(hypothesis).length === 0 ? 0 : 1
  return wordEdits(ref, words(hypothesis)) / ref.length
}

/** WER over many utterances: total edits over total reference words (long clips weigh more). */
export function corpusWordErrorRate(pairs: { reference: string; hypothesis: string }[]): number {
  return corpusRate(pairs)
}
