/** Joins the engine results of consecutive pieces into one transcript with absolute times. */
import type {
  EngineTranscribeResult,
  TranscriptSegment,
  TranscriptWord,
} from '../../kernel/contracts/engine.ts'

export interface PieceResult {
  result: EngineTranscribeResult
  startSeconds: number
  seconds: number
}

export interface Joined {
  text: string
  rawText: string
  confidence: number
  segments: TranscriptSegment[]
  words: TranscriptWord[] | null
  language: string | null
}

/**
 * Confidence: the engines' own scores averaged, weighted by piece duration, over pieces that produced text.
 * Empty text: 0. Text from an engine that reports no score: 1 (documented: "not measured").
 */
export function joinPieces(pieces: readonly PieceResult[], replace: (text: string) => string): Joined {
  const spoken = pieces.filter((p) => p.result.text.trim() !== '')
  const rawText = spoken.map((p) => p.result.text.trim()).join(' ')
  const segments: TranscriptSegment[] = []
  const words: TranscriptWord[] = []
  let anyWords = false
  for (const piece of spoken) {
    const { result, startSeconds } = piece
    const own = result.segments?.length
      ? result.segments
      : [{ text: result.text, start: 0, end: piece.seconds }]
    for (const s of own) {
      segments.push({
        text: replace(s.text.trim()),
        start: startSeconds + s.start,
        end: startSeconds + s.end,
      })
    }
    if (result.words) {
      anyWords = true
      for (const w of result.words)
        words.push({ ...w, start: startSeconds + w.start, end: startSeconds + w.end })
    }
  }
  return {
    text: replace(rawText),
    rawText,
    confidence: confidenceOf(spoken),
    segments,
    words: anyWords ? words : null,
    language: spoken.find((p) => p.result.language)?.result.language ?? null,
  }
}

function confidenceOf(spoken: readonly PieceResult[]): number {
  if (spoken.length === 0) return 0
  const scored = spoken.filter(
    (p) => typeof p.result.confidence === 'number' && Number.isFinite(p.result.confidence),
  )
  if (scored.length === 0) return 1
  let weight = 0
  let sum = 0
  for (const p of scored) {
    const w = Math.max(p.seconds, 1e-3)
    weight += w
    sum += w * Math.min(1, Math.max(0, p.result.confidence as number))
  }
  return sum / weight
}
