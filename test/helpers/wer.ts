/**
 * Word error rate for tests and benchmarks: both texts are normalised (lower case, punctuation and
 * apostrophes removed, whitespace collapsed), then the word-level Levenshtein distance is divided by the
 * number of reference words.
 */

export function normaliseWords(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter(Boolean)
}

/** Substitutions + deletions + insertions turning `reference` into `hypothesis`. */
export function wordEdits(reference: string[], hypothesis: string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j)
  for (let i = 1; i <= reference.length; i++) {
    const current = [i]
    for (let j = 1; j <= hypothesis.length; j++) {
      const substitution = (previous[j - 1] as number) + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1)
      current[j] = Math.min(substitution, (previous[j] as number) + 1, (current[j - 1] as number) + 1)
    }
    previous = current
  }
  return previous[hypothesis.length] as number
}

export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = normaliseWords(reference)
  const hyp = normaliseWords(hypothesis)
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1
  return wordEdits(ref, hyp) / ref.length
}

/** WER over many utterances: total edits over total reference words (long clips weigh more). */
export function corpusWordErrorRate(pairs: { reference: string; hypothesis: string }[]): number {
  let edits = 0
  let words = 0
  for (const { reference, hypothesis } of pairs) {
    const ref = normaliseWords(reference)
    edits += wordEdits(ref, normaliseWords(hypothesis))
    words += ref.length
  }
  return words === 0 ? 0 : edits / words
}
