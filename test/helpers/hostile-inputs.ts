/**
 * The worst inputs of issue 16, built once for the fuzz test and the `abuse` bench: WAV files whose header
 * lies, deeply nested JSON, long replacement lists, hyphenated triggers.
 */
import { encodeWav, tone } from './wav.ts'

export interface WavHeaderLie {
  sampleRate?: number
  channels?: number
  bitsPerSample?: number
  /** WAVE format tag: 1 PCM, 3 float, 0xfffe extensible, anything else unsupported. */
  formatTag?: number
  /** Value of the data chunk's size field (the real data is `dataBytes` long). */
  dataSizeField?: number
  /** Value of the fmt chunk's size field (the real fmt body is 16 bytes). */
  fmtSizeField?: number
  /** Value of the RIFF size field. */
  riffSizeField?: number
  blockAlign?: number
  dataBytes?: number
}

/** A WAV file whose header says what `lie` says, followed by `dataBytes` of a quiet signal. */
export function lyingWav(lie: WavHeaderLie = {}): Buffer {
  const channels = lie.channels ?? 1
  const bits = lie.bitsPerSample ?? 16
  const rate = lie.sampleRate ?? 16_000
  const dataBytes = lie.dataBytes ?? 3200
  const fmt = Buffer.alloc(24)
  fmt.write('fmt ', 0, 'latin1')
  fmt.writeUInt32LE(lie.fmtSizeField ?? 16, 4)
  fmt.writeUInt16LE(lie.formatTag ?? 1, 8)
  fmt.writeUInt16LE(channels & 0xffff, 10)
  fmt.writeUInt32LE(rate >>> 0, 12)
  const align = lie.blockAlign ?? Math.max(1, (channels * bits) >>> 3)
  fmt.writeUInt32LE((rate * align) >>> 0, 16)
  fmt.writeUInt16LE(align & 0xffff, 20)
  fmt.writeUInt16LE(bits & 0xffff, 22)
  const data = Buffer.alloc(8 + dataBytes)
  data.write('data', 0, 'latin1')
  data.writeUInt32LE((lie.dataSizeField ?? dataBytes) >>> 0, 4)
  for (let i = 8; i + 1 < data.length; i += 2) data.writeInt16LE(Math.round(Math.sin(i / 7) * 3000), i)
  const header = Buffer.alloc(12)
  header.write('RIFF', 0, 'latin1')
  header.writeUInt32LE((lie.riffSizeField ?? 4 + fmt.length + data.length) >>> 0, 4)
  header.write('WAVE', 8, 'latin1')
  return Buffer.concat([header, fmt, data])
}

/** The 14 KB file of issue 16 item 2: a WAV claiming a 1 Hz sample rate. */
export function oneHertzWav(): Buffer {
  return lyingWav({ sampleRate: 1, dataBytes: 14_000 })
}

/** A short honest WAV (16 kHz mono s16 tone) that every engine accepts. */
export function shortWav(seconds = 0.25, sampleRate = 16_000): Buffer {
  const frames = Math.round(seconds * sampleRate)
  return encodeWav([tone(440, sampleRate, frames, 0.3)], { sampleRate, format: 's16' })
}

/** `bytes` of JSON arrays nested as deep as they go (`[[[…]]]`): issue 16 item 8 sends 24 MB of it. */
export function nestedJson(bytes: number): string {
  const depth = Math.floor(bytes / 2)
  return '['.repeat(depth) + ']'.repeat(depth)
}

/**
 * `count` replacement rules with long multi-word triggers, inside the documented limits (issue 16 item 4
 * used 500-1000 of them): each rule has `triggersPerRule` triggers of about `wordsPerTrigger` words.
 */
export function longReplacementRules(
  count = 1000,
  wordsPerTrigger = 20,
  triggersPerRule = 3,
): Array<{ triggers: string[]; replacement: string }> {
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'fox', 'golf', 'hotel', 'heard', 'samples']
  return Array.from({ length: count }, (_, rule) => ({
    triggers: Array.from({ length: triggersPerRule }, (_, n) =>
      Array.from({ length: wordsPerTrigger }, (_, w) => words[(rule * 7 + n * 3 + w) % words.length])
        .join(' ')
        .slice(0, 200),
    ),
    replacement: `Rule ${rule}`,
  }))
}

/** Triggers with hyphens and other punctuation (issue 16 item 1: "e-mail" broke every transcription). */
export const PUNCTUATED_TRIGGERS = [
  'e-mail',
  'wi-fi',
  't-shirt',
  'c++',
  'a.b',
  '(x)',
  '[y]',
  '$z^',
  'a|b',
  '\\n',
]
