/** Joins the engine results of consecutive pieces into one transcript with absolute times. */
import type {
  EngineTranscribeResult,
  TranscriptSegment,
  TranscriptToken,
  TranscriptWord,
} from '../kernel/contracts/engine.ts'
import { joinTokens } from './logprobs.ts'

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
  /** The engine's tokens with log-probabilities (logprobs.ts), null when it gave no certainty. */
  tokens: TranscriptToken[] | null
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
    const own = segmentsOf(result, piece.seconds)
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
    tokens: joinTokens(spoken.map((p) => p.result)),
  }
}

/** A pause at least this long between two words ends a segment (the VAD's default pause). */
const SEGMENT_PAUSE_SECONDS = 0.5
/** A segment cut from word timings is at most this long (as whisper's). */
const MAX_SEGMENT_SECONDS = 30

/**
 * A piece's segments, relative to the piece. An engine that gives several keeps them. One that gives a
 * single segment for the whole piece but word timings gets segments that follow the pauses between words,
 * as whisper-style clients (subtitles, players) expect — unless its words do not spell its text (then the
 * one segment stays, so no segment text differs from the transcript).
 */
export function segmentsOf(result: EngineTranscribeResult, pieceSeconds: number): TranscriptSegment[] {
  const own = result.segments?.length ? result.segments : [{ text: result.text, start: 0, end: pieceSeconds }]
  const words = (result.words ?? []).filter((w) => w.word.trim() !== '')
  if (own.length > 1 || words.length < 2) return own
  if (words.map((w) => w.word.trim()).join(' ') !== result.text.trim().split(/\s+/u).join(' ')) return own
  const segments: TranscriptSegment[] = []
  let group: TranscriptWord[] = [words[0]!]
  const flush = () =>
    segments.push({
      text: group.map((w) => w.word.trim()).join(' '),
      start: group[0]!.start,
      end: group[group.length - 1]!.end,
    })
  for (const word of words.slice(1)) {
    const previous = group[group.length - 1]!
    if (
      word.start - previous.end >= SEGMENT_PAUSE_SECONDS ||
      word.end - group[0]!.start > MAX_SEGMENT_SECONDS
    ) {
      flush()
      group = [word]
    } else group.push(word)
  }
  flush()
  return segments
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
