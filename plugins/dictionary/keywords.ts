/**
 * OpenAI's `keywords` (words or phrases to guide recognition, sent with one request or one realtime session):
 * checked as OpenAI checks them and merged with the dictionary's custom words for that request only. The
 * stored dictionary is never changed. Bounds are the dictionary's own (`LIMITS`): a request cannot hand the
 * engine a longer word, or more words, than the dictionary may hold.
 */
import type { EngineCustomWord } from '../../kernel/contracts/engine.ts'
import { isWellFormedText } from '../../lib/validate.ts'
import { LIMITS } from './schemas.ts'

export const MAX_KEYWORDS = LIMITS.maxWords
export const MAX_KEYWORD_LENGTH = LIMITS.maxWordLength

/** `<` and `>` (OpenAI reserves them for its own markup), carriage return and line feed: one phrase per entry. */
const FORBIDDEN = /[<>\r\n]/

/** Why one keyword is refused, or null when it is fine. */
export function keywordProblem(keyword: unknown): string | null {
  if (typeof keyword !== 'string') return 'must be a string'
  if (keyword.trim() === '') return 'is empty'
  if (FORBIDDEN.test(keyword)) return 'must be one word or phrase, without <, >, carriage return or line feed'
  if (!isWellFormedText(keyword)) return 'is not well-formed text'
  if (keyword.length > MAX_KEYWORD_LENGTH) return `is longer than ${MAX_KEYWORD_LENGTH} characters`
  return null
}

/** Why a list of keywords is refused (naming the entry by its index), or null. */
export function keywordsProblem(
  keywords: readonly unknown[],
): { index: number | null; reason: string } | null {
  if (keywords.length > MAX_KEYWORDS) return { index: null, reason: `has more than ${MAX_KEYWORDS} entries` }
  for (const [index, keyword] of keywords.entries()) {
    const reason = keywordProblem(keyword)
    if (reason) return { index, reason }
  }
  return null
}

/**
 * The custom words an engine gets: the dictionary's, then each keyword not already among them (compared
 * without case), at the engine's default weight. Keywords are trimmed and single-spaced.
 */
export function withKeywords(
  words: readonly EngineCustomWord[],
  keywords: readonly string[],
): EngineCustomWord[] {
  const merged = words.map((w) => ({ text: w.text, weight: w.weight, aliases: [...w.aliases] }))
  const seen = new Set(merged.map((w) => w.text.toLowerCase()))
  for (const keyword of keywords) {
    const text = keyword.trim().replace(/\s+/gu, ' ')
    if (seen.has(text.toLowerCase())) continue
    seen.add(text.toLowerCase())
    merged.push({ text, weight: null, aliases: [] })
  }
  return merged
}
