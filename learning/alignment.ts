/**
 * Word alignment of what the engine heard with what the user kept: the changed spans between them, and the
 * word error rate replay reports. Words are compared normalised (lower case, no punctuation or apostrophes),
 * so "Himself." and "himself" are the same word and a correction of punctuation alone changes nothing.
 */

/** Normalised words of a text. */
export function words(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter(Boolean)
}

/** One place where the texts differ: `heard` (engine) became `meant` (the user's); either may be empty. */
export interface ChangedSpan {
  heard: string[]
  meant: string[]
}

type Step = 'same' | 'sub' | 'del' | 'ins'

/** Levenshtein table over words, walked back into steps (first to last). */
function steps(a: readonly string[], b: readonly string[]): Step[] {
  const cost: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)]
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    const above = cost[i - 1] as number[]
    for (let j = 1; j <= b.length; j++) {
      const diagonal = (above[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1)
      row[j] = Math.min(diagonal, (above[j] as number) + 1, (row[j - 1] as number) + 1)
    }
    cost.push(row)
  }
  const path: Step[] = []
  let i = a.length
  let j = b.length
  while (i > 0 || j > 0) {
    const here = (cost[i] as number[])[j] as number
    if (i > 0 && j > 0 && a[i - 1] === b[j - 1] && here === ((cost[i - 1] as number[])[j - 1] as number)) {
      path.push('same')
      i--
      j--
    } else if (i > 0 && j > 0 && here === ((cost[i - 1] as number[])[j - 1] as number) + 1) {
      path.push('sub')
      i--
      j--
    } else if (i > 0 && here === ((cost[i - 1] as number[])[j] as number) + 1) {
      path.push('del')
      i--
    } else {
      path.push('ins')
      j--
    }
  }
  return path.reverse()
}

/** The changed spans of `heard` → `meant` (runs of edits between words both share), in order. */
export function changedSpans(heard: readonly string[], meant: readonly string[]): ChangedSpan[] {
  const spans: ChangedSpan[] = []
  let open: ChangedSpan | null = null
  let i = 0
  let j = 0
  for (const step of steps(heard, meant)) {
    if (step === 'same') {
      open = null
      i++
      j++
      continue
    }
    if (!open) {
      open = { heard: [], meant: [] }
      spans.push(open)
    }
    if (step !== 'ins') open.heard.push(heard[i++] as string)
    if (step !== 'del') open.meant.push(meant[j++] as string)
  }
  return spans
}

/** Substitutions, deletions and insertions turning `reference` into `hypothesis`. */
export function wordEdits(reference: readonly string[], hypothesis: readonly string[]): number {
  return steps(reference, hypothesis).filter((step) => step !== 'same').length
}

/** Word error rate of `hypothesis` against `reference` over many pairs: total edits over total words. */
export function wordErrorRate(pairs: readonly { reference: string; hypothesis: string }[]): number {
  let edits = 0
  let total = 0
  for (const { reference, hypothesis } of pairs) {
    const ref = words(reference)
    edits += wordEdits(ref, words(hypothesis))
    total += ref.length
  }
  return total === 0 ? 0 : edits / total
}
