/**
 * From Vosk's JSON results to dictum's result.
 *
 * Confidence rule: the arithmetic mean of the words' `conf` (Vosk's word posterior from the lattice, 0..1),
 * clamped to 0..1; no words: text '' and confidence null. Each Vosk utterance (cut by its endpointer) is one
 * segment, from its first word's start to its last word's end.
 */
import type { EngineTranscribeResult, TranscriptSegment, TranscriptWord } from '../../sdk/plugin.ts'

interface VoskWord {
  word?: unknown
  start?: unknown
  end?: unknown
  conf?: unknown
}

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)

/** The words of one `vosk_recognizer_result` / `_final_result` JSON (empty for `{"text": ""}`). */
export function wordsOf(json: string): TranscriptWord[] {
  let parsed: { result?: unknown }
  try {
    parsed = JSON.parse(json) as { result?: unknown }
  } catch {
    throw new Error(`libvosk returned a result that is not JSON: ${json.slice(0, 80)}`)
  }
  if (!Array.isArray(parsed.result)) return []
  return (parsed.result as VoskWord[]).flatMap((w) => {
    if (typeof w.word !== 'string' || !finite(w.start) || !finite(w.end)) return []
    const word: TranscriptWord = { word: w.word, start: Math.max(0, w.start), end: Math.max(0, w.end) }
    if (finite(w.conf)) word.confidence = Math.min(1, Math.max(0, w.conf))
    return [word]
  })
}

/** The hypothesis of `vosk_recognizer_partial_result` JSON (`{"partial": "..."}`), '' when none. */
export function partialOf(json: string): string {
  try {
    const parsed = JSON.parse(json) as { partial?: unknown }
    return typeof parsed.partial === 'string' ? parsed.partial.trim() : ''
  } catch {
    throw new Error(`libvosk returned a partial result that is not JSON: ${json.slice(0, 80)}`)
  }
}

/** Joins the utterances of one piece of audio, each given as its list of words. */
export function toResult(
  utterances: readonly TranscriptWord[][],
  language: string | undefined,
): EngineTranscribeResult {
  const spoken = utterances.filter((words) => words.length > 0)
  const words = spoken.flat()
  const segments: TranscriptSegment[] = spoken.map((u) => ({
    text: u.map((w) => w.word).join(' '),
    start: u[0]!.start,
    end: u.at(-1)!.end,
  }))
  const text = segments.map((s) => s.text).join(' ')
  const scored = words.filter((w) => w.confidence !== undefined)
  const confidence =
    scored.length === 0 ? null : scored.reduce((sum, w) => sum + (w.confidence as number), 0) / scored.length
  return { text, confidence, words, segments, ...(language ? { language } : {}) }
}
