/**
 * Applies replacement rules to a transcript (docs/api-decisions.md): case-insensitive, whole words (Unicode
 * letters, digits and marks are word characters: a trigger never starts or ends inside a word, whatever
 * characters it holds itself), the longest trigger wins at a position, one pass (a replacement's output is
 * never matched again). Whitespace inside a trigger matches any run of whitespace.
 */
import type { ReplacementRule } from './schemas.ts'

export interface ReplacementMatcher {
  apply(text: string): string
  /**
   * `apply`, and how many characters at the start of its result no continuation of `text` (more words after
   * whitespace, as the pieces of a transcript are joined) can change: a trigger that may still match across
   * the end holds back the text from where it starts. Streamed transcripts send only that much.
   */
  applySettled(text: string): Settled
}

export interface Settled {
  text: string
  /** Length of the prefix of `text` that is final. */
  settled: number
}

const WORD = /[\p{L}\p{N}\p{M}]/u
const SPACE = /\s/u

function key(text: string): string {
  return text.toLowerCase().replace(/\s+/gu, ' ')
}

/** A trie over the triggers' characters (lower case; ' ' stands for any run of whitespace). */
interface Node {
  next: Map<string, Node>
  /** The replacement when a trigger ends here. */
  replacement?: string
}

/**
 * Compiles the rules once into a trie of their triggers; reuse the matcher while the rules are unchanged.
 * Matching walks the trie from each position that may start a whole word, so its work is bounded by the
 * text's length times the longest trigger (200 characters), whatever the number of rules, and no trigger
 * text can fail to compile (a giant regular expression did: "Invalid escape" for a hyphen, "Regular
 * expression too large" for a long list).
 */
export function compileReplacements(rules: readonly ReplacementRule[]): ReplacementMatcher {
  const root: Node = { next: new Map() }
  let any = false
  for (const rule of rules) {
    for (const trigger of rule.triggers) {
      const k = key(trigger)
      if (k === '') continue
      let node = root
      for (const char of k) {
        let child = node.next.get(char)
        if (!child) {
          child = { next: new Map() }
          node.next.set(char, child)
        }
        node = child
      }
      // The first rule that names a trigger owns it, as in the list order the user sees.
      if (node.replacement === undefined) node.replacement = rule.replacement
      any = true
    }
  }
  if (!any) return { apply: (text) => text, applySettled: (text) => ({ text, settled: text.length }) }
  return { apply: (text) => replaceAll(text, root).text, applySettled: (text) => replaceAll(text, root) }
}

function replaceAll(text: string, root: Node): Settled {
  const chars = Array.from(text)
  let out = ''
  let settled: number | null = null
  let at = 0
  while (at < chars.length) {
    const previous = at > 0 ? (chars[at - 1] as string) : ''
    const match = previous !== '' && WORD.test(previous) ? null : longestMatch(chars, at, root)
    if (match?.open && settled === null) settled = out.length
    if (match?.replacement !== undefined) {
      out += match.replacement
      at = match.end
    } else {
      out += chars[at]
      at++
    }
  }
  return { text: out, settled: settled ?? out.length }
}

/**
 * The longest trigger starting at `start` that ends at a word boundary, if any; `open` when the text ended
 * while a longer trigger could still match (more text could change the decision made here).
 */
function longestMatch(
  chars: readonly string[],
  start: number,
  root: Node,
): { end: number; replacement?: string; open: boolean } | null {
  let node: Node | undefined = root
  let at = start
  let best: { end: number; replacement: string } | null = null
  while (node && at <= chars.length) {
    if (node.replacement !== undefined && node !== root) {
      const following = chars[at]
      if (following === undefined || !WORD.test(following)) best = { end: at, replacement: node.replacement }
    }
    const char = chars[at]
    if (char === undefined) {
      if (node.next.size > 0) return { end: best?.end ?? at, ...best, open: true }
      break
    }
    if (SPACE.test(char)) {
      node = node.next.get(' ')
      while (at < chars.length && SPACE.test(chars[at] as string)) at++
      continue
    }
    for (const lower of char.toLowerCase()) node = node?.next.get(lower)
    at++
  }
  return best && { ...best, open: false }
}

/** One-shot form of {@link compileReplacements}. */
export function applyReplacements(text: string, rules: readonly ReplacementRule[]): string {
  return compileReplacements(rules).apply(text)
}
