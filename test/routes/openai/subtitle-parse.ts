/** Strict SRT and WebVTT readers for tests: they throw on anything a player would choke on. */

export interface ParsedCue {
  start: number
  end: number
  text: string
}

function seconds(h: string, m: string, s: string, ms: string): number {
  if (Number(m) > 59 || Number(s) > 59) throw new Error(`bad clock ${h}:${m}:${s}`)
  return Number(h) * 3600 + Number(m) * 60 + Number(s) + Number(ms) / 1000
}

function timing(line: string | undefined, separator: ',' | '.'): { start: number; end: number } {
  const clock = `(\\d{2}):(\\d{2}):(\\d{2})\\${separator}(\\d{3})`
  const match = new RegExp(`^${clock} --> ${clock}$`).exec(line ?? '')
  if (!match) throw new Error(`bad timing line: ${JSON.stringify(line)}`)
  const [, ...p] = match as unknown as string[]
  return { start: seconds(p[0]!, p[1]!, p[2]!, p[3]!), end: seconds(p[4]!, p[5]!, p[6]!, p[7]!) }
}

function blocks(text: string): string[][] {
  if (text.trim() === '') return []
  if (!text.endsWith('\n')) throw new Error('the file does not end with a newline')
  return text
    .trim()
    .split(/\n\n/)
    .map((block) => block.split('\n'))
}

export function parseSrt(text: string): ParsedCue[] {
  return blocks(text).map((lines, i) => {
    if (lines[0] !== String(i + 1)) throw new Error(`cue ${i + 1} is numbered ${JSON.stringify(lines[0])}`)
    const { start, end } = timing(lines[1], ',')
    const body = lines.slice(2)
    if (body.length === 0 || body.some((l) => l.trim() === '')) throw new Error(`cue ${i + 1} has no text`)
    return { start, end, text: body.join(' ') }
  })
}

export function parseVtt(text: string): ParsedCue[] {
  if (!text.startsWith('WEBVTT\n\n') && text !== 'WEBVTT\n\n') throw new Error('no WEBVTT header')
  return blocks(text.slice('WEBVTT\n\n'.length)).map((lines, i) => {
    const { start, end } = timing(lines[0], '.')
    const body = lines.slice(1)
    if (body.length === 0 || body.some((l) => l.trim() === '')) throw new Error(`cue ${i + 1} has no text`)
    return { start, end, text: body.join(' ') }
  })
}
