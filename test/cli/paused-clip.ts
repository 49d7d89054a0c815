/**
 * A speaker who pauses: a first clip (librispeech-1089-134686-0001.wav, 3.3 s, "... his belly counselled
 * him", unless another is named), 3 s of silence, goforward.wav, written as one WAV file (9.1 s: pocketsphinx
 * decodes what it is given, so short).
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { AudioDecoder } from '../../audio/index.ts'
import { encodeWav16 } from '../../audio/wav-encode.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'

export const RATE = 16000
export const GAP_SECONDS = 3

export async function pausedClip(
  dir: string,
  firstClip = 'librispeech-1089-134686-0001.wav',
): Promise<{ file: string; firstSamples: number; totalSamples: number }> {
  const decoder = new AudioDecoder({ maxSeconds: 60 })
  try {
    const first = await decoder.decode({ kind: 'file', path: path.join(audioFixturesDir, firstClip) })
    const second = await decoder.decode({ kind: 'file', path: path.join(audioFixturesDir, 'goforward.wav') })
    const all = new Float32Array(first.length + GAP_SECONDS * RATE + second.length)
    all.set(first, 0)
    all.set(second, first.length + GAP_SECONDS * RATE)
    const file = path.join(dir, 'paused.wav')
    writeFileSync(file, encodeWav16(all))
    return { file, firstSamples: first.length, totalSamples: all.length }
  } finally {
    await decoder.close()
  }
}

/** The fixture engine's "heard N samples", as a number. */
export const samplesHeard = (text: string) => Number(/heard (\d+) samples/.exec(text)?.[1] ?? Number.NaN)
