/**
 * Custom words → sherpa-onnx hotwords, and decoded aliases → canonical text.
 *
 * The hotword string is built here from validated phrases only: sherpa-onnx aborts on a non-numeric
 * `:score`, splits phrases at `/`, reads a word starting with `:`, `#` or `@` as a control field, and skips
 * (with a log line) pieces the vocabulary lacks.
 */

import type { EngineCustomWord } from '../../sdk/plugin.ts'
import type { TokenTable } from './tokens.ts'

/** Scores a custom word's weight maps onto: weight 0+ → MIN_SCORE, weight 100 → MAX_SCORE. */
export const MIN_SCORE = 0.5
export const MAX_SCORE = 4

export interface HotwordPlan {
  /** `PHRASE :score` lines, in order; joined with `/` for `createStream`. */
  lines: string[]
  /** Phrases left out, with why. */
  skipped: { phrase: string; reason: string }[]
}

/** Weight in (0, 100] → score in (MIN_SCORE, MAX_SCORE], linear and monotone; null → the default score. */
export function weightToScore(weight: number | null, defaultScore: number): number {
  if (weight === null || !Number.isFinite(weight)) return defaultScore
  const clamped = Math.min(100, Math.max(0, weight))
  return MIN_SCORE + ((MAX_SCORE - MIN_SCORE) * clamped) / 100
}

/** The character, else its base letter without accents, else the other case, when the vocabulary has it. */
function spellable(c: string, tokens: TokenTable): string | null {
  if (!/[\p{L}\p{N}'-]/u.test(c)) return null
  const base = c.normalize('NFD').replace(/\p{M}+/gu, '')
  const candidates = [c, base, c.toLowerCase(), c.toUpperCase(), base.toLowerCase(), base.toUpperCase()]
  return (
    candidates.find((candidate) => [...candidate].length === 1 && tokens.characters.has(candidate)) ?? null
  )
}

/** Keeps letters, digits, apostrophes and inner hyphens the vocabulary can spell; converts letter case. */
export function sanitizePhrase(phrase: string, tokens: TokenTable): string {
  let text = phrase.normalize('NFC')
  if (tokens.letterCase === 'upper') text = text.toUpperCase()
  if (tokens.letterCase === 'lower') text = text.toLowerCase()
  const kept = [...text].map((c) => spellable(c, tokens) ?? ' ')
  return kept
    .join('')
    .split(/\s+/)
    .map((word) => word.replace(/^[-']+|[-']+$/g, ''))
    .filter((word) => word.length > 0)
    .join(' ')
}

/** Builds the hotword lines for one request. */
export function planHotwords(
  words: EngineCustomWord[],
  tokens: TokenTable,
  defaultScore: number,
): HotwordPlan {
  const lines: string[] = []
  const skipped: HotwordPlan['skipped'] = []
  const seen = new Set<string>()
  for (const word of words) {
    const score = weightToScore(word.weight, defaultScore).toFixed(2)
    for (const phrase of [word.text, ...word.aliases]) {
      const clean = sanitizePhrase(phrase, tokens)
      if (clean.length === 0) {
        skipped.push({ phrase, reason: 'no characters the model can spell' })
        continue
      }
      const key = clean.toLowerCase()
      if (seen.has(key)) continue
      seen.add(key)
      lines.push(`${clean} :${score}`)
    }
  }
  return { lines, skipped }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function phrasePattern(phrase: string): string {
  return phrase.trim().split(/\s+/).map(escapeRegExp).join('\\s+')
}

/**
 * Writes every decoded alias, and any other letter case of the word itself, back as the word's canonical
 * text: whole words (Unicode letters and digits are word characters), case-insensitive, longest first, one
 * pass.
 */
export function applyCanonicalForms(text: string, words: EngineCustomWord[]): string {
  const canonical = new Map<string, string>()
  for (const word of words) {
    for (const form of [word.text, ...word.aliases]) {
      const key = form.trim().split(/\s+/).join(' ').toLowerCase()
      if (key.length > 0 && !canonical.has(key)) canonical.set(key, word.text)
    }
  }
  if (canonical.size === 0 || text.length === 0) return text
  const forms = [...canonical.keys()].sort((a, b) => b.length - a.length)
  const pattern = new RegExp(
    `(?<![\\p{L}\\p{N}])(?:${forms.map(phrasePattern).join('|')})(?![\\p{L}\\p{N}])`,
    'giu',
  )
  return text.replace(pattern, (match) => canonical.get(match.split(/\s+/).join(' ').toLowerCase()) ?? match)
}
