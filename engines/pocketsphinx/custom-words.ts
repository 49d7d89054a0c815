/**
 * Custom words on pocketsphinx: the plan of what to add to the decoder and how much to favour it, built once
 * per dictionary version (the list of custom words) and applied by the decoder (decoder.ts `useBias`).
 *
 * - A word the model's dictionary has keeps its pronunciations; its aliases (spoken forms made of known
 *   words, e.g. "cube er net ease") add alternates. A word the decoders' dictionary lacks though the model's
 *   has it (one the language model lacks: search-dictionary.ts) is added with the model's pronunciations.
 * - A word it lacks (or a phrase) becomes one dictionary entry whose pronunciations come from its aliases and
 *   from its own words (dictionary, else letter to sound: the SDK's `letterToSound`).
 * - Bias: a small unigram language model of the custom words, interpolated with the main model:
 *   P(w | h) = (1 - λ) · P_main(w | h) + λ · P_custom(w), with λ = CUSTOM_MODEL_WEIGHT and
 *   P_custom(w) = weight / 100 (weight null: DEFAULT_WEIGHT). So a custom word is never less likely than
 *   λ · weight / 100 in any context (weight 100: 1 in 50; the default 10: 1 in 500),
 *   and every other word loses at most −log10(1 − λ) ≈ 0.009 of its log10 probability.
 * - The transcript shows the custom word's `text` (its canonical form) wherever its entry is recognised.
 */
import { createHash } from 'node:crypto'
import type { EngineCustomWord as CustomWord, PronunciationDictionary } from '../../sdk/plugin.ts'

/** λ: the custom model's share of the interpolated language model. */
export const CUSTOM_MODEL_WEIGHT = 0.02
/** The weight of a custom word whose weight is null (the API's "engine default"). */
export const DEFAULT_WEIGHT = 10

export interface BiasPlan {
  /** Identifies the plan: the same custom words give the same key (the decoder reuses its search). */
  key: string
  /** Entries to add to the decoder's dictionary (`word(2)` names an alternate pronunciation). */
  additions: { word: string; phones: string }[]
  /** The custom model: dictionary word and its probability. */
  unigrams: { word: string; probability: number }[]
  /** Dictionary word -> the text the transcript shows. */
  canonical: Map<string, string>
  /** Custom words left out, with why (no pronunciation could be found). */
  skipped: { text: string; reason: string }[]
}

/** Word characters of a dictionary entry: lower case, no punctuation at the ends, `_` joins a phrase. */
function spokenWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/\s+/u)
    .map((word) => word.replace(/^[^\p{L}\p{N}']+|[^\p{L}\p{N}']+$/gu, ''))
    .filter((word) => word !== '')
}

/** The words whose pronunciation must come from letter to sound (not in the dictionary). */
export function unknownWords(words: readonly CustomWord[], dictionary: PronunciationDictionary): string[] {
  const unknown = new Set<string>()
  for (const custom of words) {
    for (const phrase of [custom.text, ...custom.aliases])
      for (const word of spokenWords(phrase)) if (!dictionary.has(word)) unknown.add(word)
  }
  return [...unknown]
}

/**
 * `dictionary` is the model's, for pronunciations; `inSearch` says which of its words the decoders'
 * dictionary has (default: all, when decoders load the model's own).
 */
export function planBias(
  words: readonly CustomWord[],
  dictionary: PronunciationDictionary,
  spelled: ReadonlyMap<string, readonly string[]>,
  inSearch: (word: string) => boolean = () => true,
): BiasPlan {
  // A phrase's pronunciations: each word's first, and each word's last (letter to sound gives a word two:
  // as spelled, and with unstressed vowels reduced).
  const pronounce = (phrase: string): string[] => {
    const parts = spokenWords(phrase).map((word) => {
      const known = dictionary.get(word)
      return known ? [known[0] as string] : (spelled.get(word) ?? null)
    })
    const variants = parts.filter((p): p is readonly string[] => p !== null)
    if (variants.length === 0 || variants.length < parts.length) return []
    return [variants.map((v) => v[0]).join(' '), variants.map((v) => v[v.length - 1]).join(' ')]
  }
  const additions: BiasPlan['additions'] = []
  const probability = new Map<string, number>()
  const canonical = new Map<string, string>()
  const skipped: BiasPlan['skipped'] = []
  const added = new Map<string, string[]>()
  for (const custom of words) {
    const spoken = spokenWords(custom.text)
    if (spoken.length === 0) {
      skipped.push({ text: custom.text, reason: 'no letters or digits to pronounce' })
      continue
    }
    const entry = spoken.join('_')
    const own = dictionary.get(entry) ?? []
    // The pronunciations the decoders' dictionary already has for the entry.
    const known = inSearch(entry) ? own : []
    const have = added.get(entry) ?? []
    const candidates = custom.aliases.flatMap(pronounce)
    if (known.length === 0) candidates.unshift(...own)
    if (known.length === 0) candidates.push(...pronounce(custom.text))
    const fresh = [...new Set(candidates)].filter((p) => !known.includes(p) && !have.includes(p))
    if (known.length + have.length + fresh.length === 0) {
      skipped.push({
        text: custom.text,
        reason: 'not in the dictionary, and no alias or letter-to-sound pronunciation',
      })
      continue
    }
    for (const phones of fresh) {
      const index = known.length + have.length
      additions.push({ word: index === 0 ? entry : `${entry}(${index + 1})`, phones })
      have.push(phones)
    }
    added.set(entry, have)
    const weight = custom.weight ?? DEFAULT_WEIGHT
    probability.set(entry, Math.max(probability.get(entry) ?? 0, Math.min(100, Math.max(0, weight)) / 100))
    if (custom.text.trim() !== entry) canonical.set(entry, custom.text.trim())
  }
  const unigrams = [...probability].map(([word, p]) => ({ word, probability: p }))
  const key = createHash('sha256')
    .update(JSON.stringify([additions, unigrams]))
    .digest('hex')
    .slice(0, 16)
  return { key, additions, unigrams, canonical, skipped }
}

/** The custom model as an ARPA file (unigrams only: log10 probabilities). */
export function arpaUnigrams(unigrams: BiasPlan['unigrams']): string {
  const lines = unigrams.map(({ word, probability }) => `${Math.log10(probability).toFixed(4)} ${word}`)
  return `\\data\\\nngram 1=${unigrams.length}\n\n\\1-grams:\n${lines.join('\n')}\n\n\\end\\\n`
}
