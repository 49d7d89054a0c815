/**
 * Subtitle cues (SRT, WebVTT) from a transcript. A cue is a transcript segment, cut further at word
 * boundaries when the segment is too long to read at once and the engine gave word timings; a cut segment's
 * cue texts come from its words, with the dictionary's replacements applied to each cue.
 */
import type { TranscriptSegment, TranscriptWord } from '../../kernel/contracts/engine.ts'

export interface Cue {
  start: number
  end: number
  text: string
}

/** Longest cue, in seconds and characters (about two subtitle lines). */
const MAX_CUE_SECONDS = 7
const MAX_CUE_CHARS = 84
/** A pause this long between words starts a new cue. */
const CUE_PAUSE_SECONDS = 1
const SLACK = 0.02

export function subtitleCues(
  segments: readonly TranscriptSegment[],
  words: readonly TranscriptWord[] | null,
  replace: (text: string) => string,
): Cue[] {
  const cues: Cue[] = []
  for (const segment of segments) {
    const fits = segment.end - segment.start <= MAX_CUE_SECONDS && segment.text.length <= MAX_CUE_CHARS
    const inside = (words ?? []).filter(
      (w) => w.start >= segment.start - SLACK && w.end <= segment.end + SLACK && w.word.trim() !== '',
    )
    if (fits || inside.length < 2) cues.push({ start: segment.start, end: segment.end, text: segment.text })
    else cues.push(...wordCues(inside, replace))
  }
  return monotonic(cues.filter((cue) => cue.text.trim() !== ''))
}

function wordCues(words: readonly TranscriptWord[], replace: (text: string) => string): Cue[] {
  const groups: TranscriptWord[][] = []
  let current: TranscriptWord[] = []
  for (const word of words) {
    const first = current[0]
    const last = current.at(-1)
    const length = current.reduce((sum, w) => sum + w.word.length + 1, word.word.length)
    const full =
      first !== undefined &&
      (word.end - first.start > MAX_CUE_SECONDS ||
        length > MAX_CUE_CHARS ||
        (last !== undefined && word.start - last.end >= CUE_PAUSE_SECONDS))
    if (full) {
      groups.push(current)
      current = []
    }
    current.push(word)
  }
  if (current.length > 0) groups.push(current)
  return groups.map((group) => ({
    start: group[0]!.start,
    end: group.at(-1)!.end,
    text: replace(group.map((w) => w.word.trim()).join(' ')),
  }))
}

/** Players expect cues in order and not overlapping. */
function monotonic(cues: Cue[]): Cue[] {
  let previousEnd = 0
  return cues.map((cue) => {
    const start = Math.max(cue.start, previousEnd)
    const end = Math.max(cue.end, start)
    previousEnd = end
    return { start, end, text: cue.text.replace(/\s+/g, ' ').trim() }
  })
}

function clock(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000))
  const pad = (value: number, width = 2) => String(value).padStart(width, '0')
  const h = Math.floor(ms / 3_600_000)
  const m = Math.floor(ms / 60_000) % 60
  const s = Math.floor(ms / 1000) % 60
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`
}

export function toSrt(cues: readonly Cue[]): string {
  return cues
    .map((cue, i) => `${i + 1}\n${clock(cue.start, ',')} --> ${clock(cue.end, ',')}\n${cue.text}\n\n`)
    .join('')
}

export function toVtt(cues: readonly Cue[]): string {
  const body = cues.map((cue) => `${clock(cue.start, '.')} --> ${clock(cue.end, '.')}\n${cue.text}\n\n`)
  return `WEBVTT\n\n${body.join('')}`
}
