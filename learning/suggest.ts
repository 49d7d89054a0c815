/**
 * From one correction to suggestions. Each changed span between the engine's text and the corrected text is
 * one of three things:
 * - a writing confusion: the same letters spaced otherwise ("him self" → "himself"): a replacement rule;
 * - a mishearing: the heard and the meant words sound alike (phone distance at most MISHEARING_DISTANCE):
 *   a custom word for an engine that takes them (the meant word the span hinges on: the longest one the
 *   engine did not write), else a replacement rule heard → meant;
 * - a rewrite (style, rephrasing, an AI clean-up's work): nothing to learn.
 */
import { type ChangedSpan, changedSpans, words } from './alignment.ts'
import { type Pronouncer, phoneDistance } from './phones.ts'

/**
 * Measured on the repo's clips: pocketsphinx's mishearings are 0.0–0.54 apart ("until explosion" for "an ill
 * disposed young"), rephrasings of the same sentences 0.72 and more.
 */
export const MISHEARING_DISTANCE = 0.6
/** A custom word shorter than this many phones ("an", "in") is too short to be what the engine missed. */
const MIN_WORD_PHONES = 3

export type Proposal =
  | {
      kind: 'customWord'
      key: string
      heard: string
      entry: { text: string; weight: null; aliases: string[] }
    }
  | { kind: 'replacement'; key: string; heard: string; entry: { triggers: string[]; replacement: string } }

export interface CorrectionInput {
  /** The engine's text (the entry's rawText). */
  heard: string
  /** The text the user kept. */
  meant: string
  /** Whether the engine that made it takes custom words. */
  customWords: boolean
}

export async function proposals(input: CorrectionInput, pronouncer: Pronouncer): Promise<Proposal[]> {
  const found: Proposal[] = []
  for (const span of changedSpans(words(input.heard), words(input.meant))) {
    const proposal = await proposalOf(span, input.customWords, pronouncer)
    if (proposal && !found.some((p) => p.key === proposal.key)) found.push(proposal)
  }
  return found
}

async function proposalOf(
  span: ChangedSpan,
  customWords: boolean,
  pronouncer: Pronouncer,
): Promise<Proposal | null> {
  if (span.heard.length === 0 || span.meant.length === 0) return null
  const heard = span.heard.join(' ')
  const meant = span.meant.join(' ')
  if (span.heard.join('') === span.meant.join('')) return replacement(heard, meant)
  const heardPhones = await pronouncer.phones(span.heard)
  const meantPhones = await pronouncer.phones(span.meant)
  if (!heardPhones || !meantPhones || phoneDistance(heardPhones, meantPhones) > MISHEARING_DISTANCE)
    return null
  if (!customWords) return replacement(heard, meant)
  const word = await hingeWord(span, pronouncer)
  if (!word) return null
  // No alias: the word is pronounceable (the distance needed its phones), by the dictionary or by letter
  // to sound, which is what the engine does with a custom word too.
  return {
    kind: 'customWord',
    key: `customWord:${word}`,
    heard,
    entry: { text: word, weight: null, aliases: [] },
  }
}

function replacement(heard: string, meant: string): Proposal {
  return {
    kind: 'replacement',
    key: `replacement:${heard}\u2192${meant}`,
    heard,
    entry: { triggers: [heard], replacement: meant },
  }
}

/** The meant word the engine did not write with the most phones (at least MIN_WORD_PHONES). */
async function hingeWord(span: ChangedSpan, pronouncer: Pronouncer): Promise<string | null> {
  let best: { word: string; phones: number } | null = null
  for (const word of span.meant) {
    if (span.heard.includes(word)) continue
    const phones = (await pronouncer.phones([word]))?.length ?? word.length
    if (phones >= MIN_WORD_PHONES && (!best || phones > best.phones)) best = { word, phones }
  }
  return best?.word ?? null
}
