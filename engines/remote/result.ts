/**
 * From an OpenAI-style transcription reply (`json` or `verbose_json`) to dictum's engine result.
 *
 * Confidence rule: the mean of `exp(avg_logprob)` over the reply's segments that carry a finite
 * `avg_logprob` (Whisper's mean token log-probability, so each term is a geometric-mean token probability),
 * each segment weighted by its number of words (so a reply cut into several segments gives the figure its
 * words give, as one segment would), clamped to 0..1; null when no segment carries one (plain `json`
 * replies), so the kernel reports its documented fallback.
 */
import type { EngineTranscribeResult, TranscriptSegment, TranscriptWord } from '../../sdk/plugin.ts'

interface ReplySegment {
  text?: unknown
  start?: unknown
  end?: unknown
  avg_logprob?: unknown
}

interface ReplyWord {
  word?: unknown
  start?: unknown
  end?: unknown
  probability?: unknown
}

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)
const clamp01 = (value: number) => Math.min(1, Math.max(0, value))

/** The result, or null when the body is not a transcription (no `text` string). */
export function toEngineResult(body: unknown): EngineTranscribeResult | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null
  const reply = body as Record<string, unknown>
  if (typeof reply.text !== 'string') return null
  const text = reply.text.trim().replace(/\s+/g, ' ')
  const rawSegments = Array.isArray(reply.segments) ? (reply.segments as ReplySegment[]) : []
  const result: EngineTranscribeResult = { text, confidence: text ? confidenceOf(rawSegments) : null }
  const segments = rawSegments.flatMap(toSegment)
  if (segments.length > 0) result.segments = segments
  if (Array.isArray(reply.words)) result.words = (reply.words as ReplyWord[]).flatMap(toWord)
  const language = languageCode(reply.language)
  if (language) result.language = language
  return result
}

function confidenceOf(segments: readonly ReplySegment[]): number | null {
  let weight = 0
  let sum = 0
  for (const segment of segments) {
    if (!finite(segment.avg_logprob)) continue
    const words =
      typeof segment.text === 'string' ? segment.text.trim().split(/\s+/u).filter(Boolean).length : 0
    const w = Math.max(1, words)
    weight += w
    sum += w * Math.exp(segment.avg_logprob)
  }
  return weight === 0 ? null : clamp01(sum / weight)
}

function toSegment(segment: ReplySegment): TranscriptSegment[] {
  if (typeof segment?.text !== 'string' || !finite(segment.start) || !finite(segment.end)) return []
  const start = Math.max(0, segment.start)
  return [{ text: segment.text.trim(), start, end: Math.max(start, segment.end) }]
}

function toWord(word: ReplyWord): TranscriptWord[] {
  if (typeof word?.word !== 'string' || !finite(word.start) || !finite(word.end)) return []
  const start = Math.max(0, word.start)
  const out: TranscriptWord = { word: word.word.trim(), start, end: Math.max(start, word.end) }
  if (finite(word.probability)) out.confidence = clamp01(word.probability)
  return [out]
}

/** Whisper servers answer `english`; dictum's results carry ISO codes. Unknown names are dropped. */
const LANGUAGE_NAMES: Record<string, string> = {
  english: 'en',
  german: 'de',
  french: 'fr',
  spanish: 'es',
  italian: 'it',
  portuguese: 'pt',
  dutch: 'nl',
  russian: 'ru',
  chinese: 'zh',
  japanese: 'ja',
  korean: 'ko',
  polish: 'pl',
  ukrainian: 'uk',
  turkish: 'tr',
  arabic: 'ar',
  hindi: 'hi',
  swedish: 'sv',
}

function languageCode(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const lower = value.trim().toLowerCase()
  if (/^[a-z]{2,3}(-[a-z0-9]+)?$/.test(lower) && !(lower in LANGUAGE_NAMES)) return lower
  return LANGUAGE_NAMES[lower] ?? null
}
