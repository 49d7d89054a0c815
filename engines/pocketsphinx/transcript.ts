/**
 * From pocketsphinx's output to dictum's result: words with timings and a confidence.
 *
 * Confidence rule: the arithmetic mean of the posterior probabilities of the recognised words (fillers
 * such as `<sil>` and `[NOISE]` excluded), each taken from the decoder's lattice (`ps_seg_prob`, converted
 * with the decoder's logmath) and clamped to 0..1. No words recognised: text '' and confidence null.
 * (The whole-utterance probability is not used: it tends to 0 as utterances get longer.)
 */

import type { EngineTranscribeResult, TranscriptWord } from '../../sdk/plugin.ts'
import type { Decoded } from './decoder.ts'

/** pocketsphinx's default frame rate (`-frate 100`): one frame every 10 ms. */
export const FRAMES_PER_SECOND = 100

/** `<s>`, `</s>`, `<sil>`, `[NOISE]`, `[SPEECH]`…: not words of the transcript. */
export function isFiller(word: string): boolean {
  return /^(<[^>]*>|\[[^\]]*\]|\+\+.*\+\+)$/.test(word)
}

/** `read(2)` names the second pronunciation of `read`; the transcript wants `read`. */
export function baseWord(word: string): string {
  return word.replace(/\(\d+\)$/, '')
}

/**
 * `canonical` maps dictionary entries added for custom words to the text the transcript shows (e.g.
 * `kubernetes` -> `Kubernetes`, `new_york` -> `New York`).
 */
export function toTranscript(
  decoded: Decoded,
  language: string,
  canonical?: ReadonlyMap<string, string>,
): EngineTranscribeResult {
  const shown = (word: string) => canonical?.get(word) ?? word
  const words: TranscriptWord[] = decoded.segments
    .filter((segment) => !isFiller(segment.word))
    .map((segment) => ({
      word: shown(baseWord(segment.word)),
      start: segment.startFrame / FRAMES_PER_SECOND,
      end: (segment.endFrame + 1) / FRAMES_PER_SECOND,
      confidence: clamp01(segment.posterior),
    }))
  const text = hypothesisText(decoded.hypothesis, canonical)
  const first = words[0]
  const last = words.at(-1)
  if (!text || !first || !last) return { text, confidence: null, words: [], segments: [], language }
  const confidence = words.reduce((sum, word) => sum + (word.confidence ?? 0), 0) / words.length
  return { text, confidence, words, segments: [{ text, start: first.start, end: last.end }], language }
}

/** The decoder's hypothesis as transcript text: words single-spaced, custom words in their canonical form. */
export function hypothesisText(hypothesis: string, canonical?: ReadonlyMap<string, string>): string {
  return hypothesis
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => canonical?.get(word) ?? word)
    .join(' ')
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0
}
