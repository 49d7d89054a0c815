/**
 * Capitals at sentence starts (start of text, after . ! ? and after a line break) and for the pronoun "I".
 * Only all-lower-case words are touched, so "iPhone", "eBay", "mp3" or a URL at a sentence start stay as they
 * are; nothing is ever lower-cased. No capital after an ellipsis or after common abbreviations (e.g., i.e.,
 * etc., vs., Mr., Dr., a.m.…), where a sentence usually goes on.
 */

/** A sentence start: text start, a line start, or . ! ? and whitespace; then optional opening marks; then a
 * lower-case word that is not followed by characters that make it a name, a number, a URL or code. */
const SENTENCE_START =
  /(^|\n|[.!?]["”’')\]]*[^\S\n]+)(["“‘'([]*)(\p{Ll}[\p{Ll}'’-]*)(?![\p{L}\p{N}_@/\\]|[.:][\p{L}\p{N}])/gu
/** A lone "i" (or i'm, i'll, i've, i'd), but not "i.e.", part of a path, or a list numeral such as "(i)". */
const PRONOUN_I =
  /(?<![\p{L}\p{N}'’._@/\\(-])i(?=(?:['’](?:m|ll|ve|d)(?![\p{L}\p{N}]))?(?![\p{L}\p{N}'’_@/\\)-]|\.\p{L}))/gu
const ABBREVIATION =
  /(?:^|[^\p{L}])(?:e\.g|i\.e|etc|vs|cf|approx|incl|mr|mrs|ms|dr|prof|st|jr|sr|no|fig|vol|a\.m|p\.m)\.["”’')\]]*[^\S\n]+$/iu
const ELLIPSIS = /(?:\.\.\.|…)["”’')\]]*[^\S\n]+$/u

export function capitalize(text: string): string {
  const sentences = text.replace(
    SENTENCE_START,
    (whole, lead: string, opening: string, word: string, at: number) => {
      if (lead !== '' && lead !== '\n') {
        // Only the end of the text before the capital matters; a short window keeps this linear.
        const upToLead = text.slice(Math.max(0, at + lead.length - 24), at + lead.length)
        if (ELLIPSIS.test(upToLead) || ABBREVIATION.test(upToLead)) return whole
      }
      return `${lead}${opening}${word.charAt(0).toUpperCase()}${word.slice(1)}`
    },
  )
  return sentences.replace(PRONOUN_I, 'I')
}
