/**
 * Subtitles from a transcript: SRT and WebVTT cues with times that only move forward. Long segments are cut
 * into readable cues (at most ~7 s and two lines of 42 characters) where the engine gave word timings.
 * The one implementation: `dictum transcribe --format srt|vtt` and `/v1/audio/transcriptions` with
 * `response_format=srt|vtt` both write subtitles with it, so the same audio gives the same file.
 */
import type { TranscriptSegment, TranscriptWord } from '../kernel/contracts/engine.ts'

export interface Cue {
  /** Milliseconds from the start of the audio. */
  startMs: number
  endMs: number
  text: string
}

export interface CueSource {
  text: string
  durationSeconds: number
  segments: readonly TranscriptSegment[]
  words: readonly TranscriptWord[] | null
}

const MAX_CUE_CHARS = 84
const MAX_CUE_SECONDS = 7
/** A pause this long between two words starts a new cue. */
const CUE_GAP_SECONDS = 1
const LINE_CHARS = 42

/**
 * Cues in time order. `replace` is the dictionary's replacement pass: segment texts already went through it,
 * so cues cut from words go through it too (and a segment stays whole when that would change its text).
 */
export function cuesOf(transcript: CueSource, replace: (text: string) => string = (t) => t): Cue[] {
  const segments: readonly TranscriptSegment[] =
    transcript.segments.length > 0 || transcript.text.trim() === ''
      ? transcript.segments
      : [{ text: transcript.text, start: 0, end: transcript.durationSeconds }]
  const timed: { text: string; start: number; end: number }[] = []
  for (const segment of segments) {
    if (segment.text.trim() === '') continue
    timed.push(...splitSegment(segment, transcript.words ?? [], replace))
  }
  return monotonic(timed)
}

function splitSegment(
  segment: TranscriptSegment,
  words: readonly TranscriptWord[],
  replace: (text: string) => string,
): TranscriptSegment[] {
  const text = segment.text.trim()
  if (text.length <= MAX_CUE_CHARS && segment.end - segment.start <= MAX_CUE_SECONDS) return [segment]
  const inside = words.filter(
    (w) => w.word.trim() !== '' && w.start >= segment.start - 0.05 && w.end <= segment.end + 0.05,
  )
  if (inside.length === 0) return [segment]
  const cues = groupWords(inside).map((group) => ({
    text: replace(group.map((w) => w.word.trim()).join(' ')),
    start: group[0]!.start,
    end: group[group.length - 1]!.end,
  }))
  return cues.map((c) => c.text).join(' ') === text ? cues : [segment]
}

function groupWords(words: readonly TranscriptWord[]): TranscriptWord[][] {
  const groups: TranscriptWord[][] = []
  let current: TranscriptWord[] = []
  let chars = 0
  for (const word of words) {
    const first = current[0]
    const last = current[current.length - 1]
    const tooLong = chars + word.word.length + 1 > MAX_CUE_CHARS
    const tooSlow = first !== undefined && word.end - first.start > MAX_CUE_SECONDS
    const pause = last !== undefined && word.start - last.end >= CUE_GAP_SECONDS
    if (current.length > 0 && (tooLong || tooSlow || pause)) {
      groups.push(current)
      current = []
      chars = 0
    }
    current.push(word)
    chars += word.word.length + 1
  }
  if (current.length > 0) groups.push(current)
  return groups
}

/** Whole milliseconds; each cue starts no earlier than the previous one ends and lasts at least 1 ms. */
function monotonic(cues: readonly TranscriptSegment[]): Cue[] {
  const out: Cue[] = []
  let floor = 0
  for (const cue of [...cues].sort((a, b) => a.start - b.start)) {
    const startMs = Math.max(floor, Math.round(Math.max(0, cue.start) * 1000))
    const endMs = Math.max(startMs + 1, Math.round(cue.end * 1000))
    out.push({ startMs, endMs, text: cue.text.trim() })
    floor = endMs
  }
  return out
}

/** `01:02:03,456` (SRT) or `01:02:03.456` (WebVTT). */
export function formatTimestamp(ms: number, separator: ',' | '.'): string {
  const total = Math.max(0, Math.round(ms))
  const pad = (n: number, width = 2) => String(n).padStart(width, '0')
  const hours = Math.floor(total / 3_600_000)
  const minutes = Math.floor((total % 3_600_000) / 60_000)
  const seconds = Math.floor((total % 60_000) / 1000)
  return `${pad(hours)}:${pad(minutes)}:${pad(seconds)}${separator}${pad(total % 1000, 3)}`
}

/** Lines of at most ~42 characters, cut at spaces (a longer word stays whole). */
export function wrapLines(text: string, width = LINE_CHARS): string[] {
  const lines: string[] = []
  for (const paragraph of text.split(/\s*\n\s*/)) {
    let line = ''
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line !== '' && line.length + 1 + word.length > width) {
        lines.push(line)
        line = word
      } else line = line === '' ? word : `${line} ${word}`
    }
    if (line !== '') lines.push(line)
  }
  return lines
}

export function formatSrt(cues: readonly Cue[]): string {
  return cues
    .map(
      (cue, i) =>
        `${i + 1}\n${formatTimestamp(cue.startMs, ',')} --> ${formatTimestamp(cue.endMs, ',')}\n` +
        `${wrapLines(cue.text).join('\n')}\n`,
    )
    .join('\n')
}

export function formatVtt(cues: readonly Cue[]): string {
  const escapeHtml = (line: string) =>
    line.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
  const body = cues.map(
    (cue) =>
      `${formatTimestamp(cue.startMs, '.')} --> ${formatTimestamp(cue.endMs, '.')}\n` +
      `${wrapLines(cue.text).map(escapeHtml).join('\n')}\n`,
  )
  return ['WEBVTT\n', ...body].join('\n')
}
