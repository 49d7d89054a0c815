/**
 * Filler words. By default only hesitation sounds that are never words with a meaning (um, uh, er, erm, ah,
 * hmm…) are removed, plus "you know" and "I mean" when commas set them off on both sides ("it was, you know,
 * fine"). "like", "so", "actually", "you know" without commas and the like are kept: they are often meant.
 * Words in capitals ("ER", "UM") are taken for abbreviations and kept. Extra fillers from the options are
 * removed wherever they occur as whole words.
 */
import { erase, matchPhrase, nextVisible, type Token } from '../../sdk/plugin.ts'

/** Hesitation sounds, stretched forms included (umm, uhh, hmmm). "err" and "mm" are real words and units. */
const HESITATION = /^(?:u+m+|u+h+m*|e+r+m+|er|a+h+|h+m+)$/i
const FENCED_PHRASES: readonly (readonly string[])[] = [
  ['you', 'know'],
  ['i', 'mean'],
]
const SENTENCE_END = new Set(['.', '!', '?'])
const TRAILING = new Set([',', '…', '-', '–', '—'])

export interface FillerSettings {
  /** Extra fillers (words or phrases), lower-cased and split into words. */
  extra: readonly (readonly string[])[]
}

export function removeFillers(tokens: Token[], settings: FillerSettings): void {
  // Indices of the tokens before `i` that are still visible, so that a run of fillers ("um, um, um") does
  // not make every removal walk back over all the ones erased before it.
  const visible: number[] = []
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]
    if (token?.kind === 'space') continue
    const end = token?.kind === 'word' ? matchFiller(tokens, i, visible.at(-1) ?? -1, settings) : -1
    if (end < 0) {
      visible.push(i)
      continue
    }
    removeSpan(tokens, i, end, visible)
    i = end
  }
}

/** Index of the last token of a filler starting at `start`, or -1. `before` is the visible token before it. */
function matchFiller(tokens: Token[], start: number, before: number, settings: FillerSettings): number {
  const text = (tokens[start] as Token).text
  const isCapitals = text.length > 1 && text === text.toUpperCase()
  if (HESITATION.test(text) && !isCapitals) return start
  for (const phrase of settings.extra) {
    const end = matchPhrase(tokens, start, phrase)
    if (end >= 0) return end
  }
  for (const phrase of FENCED_PHRASES) {
    const end = matchPhrase(tokens, start, phrase)
    if (end >= 0 && isPunct(tokens, before, ',') && isPunct(tokens, nextVisible(tokens, end), ',')) return end
  }
  return -1
}

/**
 * Erases a filler with the punctuation that only existed because of it: the comma or ellipsis after it, the
 * comma before it when it was set off by commas or ended the sentence, and the full stop of a sentence that
 * was nothing but the filler ("Hmm.").
 */
function removeSpan(tokens: Token[], start: number, end: number, visible: number[]): void {
  for (let i = start; i <= end; i++) erase(tokens, i)
  const before = visible.at(-1) ?? -1
  const after = nextVisible(tokens, end)
  const beforeText = tokens[before]?.kind === 'punct' ? tokens[before]?.text : undefined
  const afterText = tokens[after]?.kind === 'punct' ? tokens[after]?.text : undefined
  const atSentenceStart =
    before < 0 || tokens[before]?.kind === 'newline' || SENTENCE_END.has(beforeText ?? '')
  const eraseBefore = () => {
    erase(tokens, before)
    visible.pop()
  }
  if (afterText !== undefined && TRAILING.has(afterText)) {
    erase(tokens, after)
    if (afterText === ',' && beforeText === ',') eraseBefore()
  } else if (afterText !== undefined && SENTENCE_END.has(afterText) && isLone(tokens, after)) {
    if (beforeText === ',') eraseBefore()
    else if (atSentenceStart) erase(tokens, after)
  } else if (afterText === '.') {
    eraseEllipsis(tokens, after)
  }
}

function isPunct(tokens: Token[], index: number, text: string): boolean {
  const token = tokens[index]
  return token?.kind === 'punct' && token.text === text
}

/** A punctuation mark not followed by another (so not part of "..." or "?!"). */
function isLone(tokens: Token[], index: number): boolean {
  return tokens[index + 1]?.kind !== 'punct'
}

/** Erases "..." (three or more dots) starting at `index`. */
function eraseEllipsis(tokens: Token[], index: number): void {
  let end = index
  while (isPunct(tokens, end + 1, '.')) end++
  if (end - index < 2) return
  for (let i = index; i <= end; i++) erase(tokens, i)
}
