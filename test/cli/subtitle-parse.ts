/** Minimal SRT and WebVTT readers for the tests (independent of the formatter under test). */

export interface ParsedCue {
  index: number | null
  start: number
  end: number
  text: string
}

function seconds(stamp: string, separator: ',' | '.'): number {
  const pattern =
    separator === ',' ? /^(\d{2,}):(\d{2}):(\d{2}),(\d{3})$/ : /^(\d{2,}):(\d{2}):(\d{2})\.(\d{3})$/
  const match = pattern.exec(stamp)
  if (!match) throw new Error(`bad timestamp "${stamp}"`)
  const [, h, m, s, ms] = match
  return Number(h) * 3600 + Number(m) * 60 + Number(s) + Number(ms) / 1000
}

function cue(lines: string[], separator: ',' | '.', numbered: boolean): ParsedCue {
  const index = numbered ? Number(lines.shift()) : null
  if (numbered && !Number.isInteger(index)) throw new Error(`bad cue number in ${JSON.stringify(lines)}`)
  const timing = /^(\S+) --> (\S+)$/.exec(lines.shift() ?? '')
  if (!timing) throw new Error(`bad timing line in ${JSON.stringify(lines)}`)
  return {
    index,
    start: seconds(timing[1]!, separator),
    end: seconds(timing[2]!, separator),
    text: lines.join(' '),
  }
}

export function parseSrt(text: string): ParsedCue[] {
  const blocks = text.trim() === '' ? [] : text.trim().split(/\n\n+/)
  return blocks.map((block) => cue(block.split('\n'), ',', true))
}

export function parseVtt(text: string): ParsedCue[] {
  const [header, ...blocks] = text.trim().split(/\n\n+/)
  if (header !== 'WEBVTT') throw new Error(`missing WEBVTT header: ${JSON.stringify(header)}`)
  return blocks.map((block) => cue(block.split('\n'), '.', false))
}

/** Problems with cue times: each cue must end after it starts and start no earlier than the last ended. */
export function timeProblems(cues: ParsedCue[]): string[] {
  const problems: string[] = []
  let last = 0
  for (const [i, c] of cues.entries()) {
    if (!(c.end > c.start)) problems.push(`cue ${i} ends at ${c.end}, not after its start ${c.start}`)
    if (c.start < last) problems.push(`cue ${i} starts at ${c.start}, before the previous end ${last}`)
    if (c.index !== null && c.index !== i + 1) problems.push(`cue ${i} is numbered ${c.index}`)
    last = c.end
  }
  return problems
}
