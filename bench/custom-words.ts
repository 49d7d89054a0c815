/**
 * Section `custom-words`: pocketsphinx on the repo's clips without and with custom words. Quality: recall of
 * the words it gets wrong (MISRECOGNISED) and the word error rate of the other words. Cost: real-time factor
 * with 0, 10, 100 and 1000 custom words (the five, then known words from its dictionary and made-up words
 * spelled by letter to sound), measured once the plan is built, and the one-time cost of building it (a new
 * dictionary version). The engine runs in this process: this measures the engine, not the IPC hop.
 */
import { readFileSync } from 'node:fs'
import { Value } from '@sinclair/typebox/value'
import pocketsphinx from '../engines/pocketsphinx/index.ts'
import { DEFAULT_MODEL_DIR } from '../engines/pocketsphinx/options.ts'
import type { EngineCustomWord, EngineInstance } from '../kernel/contracts/engine.ts'
import {
  type ClipAudio,
  clipsWithAudio,
  MISRECOGNISED,
  scoreCustomWords,
} from '../test/engines/pocketsphinx/custom-words-eval.ts'
import { median, round } from './lib/load.ts'

const SAMPLE_RATE = 16000
const quiet = { debug() {}, info() {}, warn() {}, error() {} }

export async function benchCustomWords(rounds = 3): Promise<Record<string, number | string>> {
  const clips = await clipsWithAudio()
  const seconds = clips.reduce((sum, clip) => sum + clip.samples.length / SAMPLE_RATE, 0)
  const engine = await pocketsphinx.create({
    options: Value.Default(pocketsphinx.optionsSchema, {}) as never,
    dataDir: '/nonexistent',
    modelsDir: '/nonexistent',
    logger: quiet,
  })
  try {
    await engine.load()
    const boosted = MISRECOGNISED.map((w) => w.text)
    const before = scoreCustomWords(boosted, await transcribeAll(engine, clips, []))
    const after = scoreCustomWords(boosted, await transcribeAll(engine, clips, MISRECOGNISED))
    const figures: Record<string, number | string> = {
      'recall of the 5 misrecognised words, without': `${before.hits}/${before.occurrences}`,
      'recall, with them as custom words': `${after.hits}/${after.occurrences}`,
      'WER of the other words, without': round(before.otherWer),
      'WER of the other words, with': round(after.otherWer),
    }
    const lists = { 0: [], 10: wordList(10), 100: wordList(100), 1000: wordList(1000) }
    const rtf: Record<number, number[]> = { 0: [], 10: [], 100: [], 1000: [] }
    for (const [count, words] of Object.entries(lists)) {
      const started = performance.now()
      await engine.transcribe({ samples: new Float32Array(SAMPLE_RATE), customWords: words })
      if (Number(count) > 0)
        figures[`build once, ${count} words, ms`] = Math.round(performance.now() - started)
    }
    // Rounds alternate the list sizes, so machine noise hits them alike.
    for (let round = 0; round < rounds; round++) {
      for (const [count, words] of Object.entries(lists)) {
        await engine.transcribe({ samples: new Float32Array(SAMPLE_RATE), customWords: words })
        const started = performance.now()
        await transcribeAll(engine, clips, words)
        rtf[Number(count)]!.push((performance.now() - started) / 1000 / seconds)
      }
    }
    const base = median(rtf[0]!)
    figures['RTF, no custom words'] = round(base)
    for (const count of [10, 100, 1000]) {
      const value = median(rtf[count]!)
      figures[`RTF, ${count} custom words (vs none)`] = `${round(value)} (${round(value / base)})`
    }
    return figures
  } finally {
    await engine.close()
  }
}

async function transcribeAll(engine: EngineInstance, clips: ClipAudio[], words: EngineCustomWord[]) {
  const pairs: { reference: string; hypothesis: string }[] = []
  for (const clip of clips) {
    const result = await engine.transcribe({ samples: clip.samples, customWords: words })
    pairs.push({ reference: clip.reference, hypothesis: result.text })
  }
  return pairs
}

/** The five misrecognised words, then dictionary words (every 97th) and one made-up word in ten. */
function wordList(count: number): EngineCustomWord[] {
  const dictionary = readFileSync(`${DEFAULT_MODEL_DIR}/cmudict-en-us.dict`, 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((word) => /^[a-z]+$/.test(word))
  const words: EngineCustomWord[] = [...MISRECOGNISED]
  for (let i = 0; words.length < count; i++) {
    const text = i % 10 === 9 ? `zorb${i}ix` : (dictionary[(i * 97) % dictionary.length] as string)
    words.push({ text, weight: 1 + (i % 20), aliases: [] })
  }
  return words.slice(0, count)
}
