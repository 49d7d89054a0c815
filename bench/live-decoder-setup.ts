/**
 * Part of `live-cpu`: what a live decoder costs before it decodes anything, in CPU ms of this process:
 * opening it (loading the model), and setting it up for the bench server's 20 custom words (each with an
 * alias the model's dictionary lacks, so entries are added to it): opened with the model's dictionary and
 * then switched (the dictionary read a second time, with the entries, and the custom-words search built),
 * against opened with the plan's dictionary at once (only the search to build).
 */
import { type BiasPlan, planBias, unknownWords } from '../engines/pocketsphinx/custom-words.ts'
import { PocketsphinxDecoder, writePlanDictionary } from '../engines/pocketsphinx/decoder.ts'
import type { PocketsphinxNative } from '../engines/pocketsphinx/native.ts'
import type { ModelPaths } from '../engines/pocketsphinx/options.ts'
import type { EngineCustomWord } from '../kernel/contracts/engine.ts'
import { letterToSound, readDictionary } from '../text/pronunciations.ts'
import { BENCH_CUSTOM_WORDS } from './lib/custom-words.ts'
import { round } from './lib/load.ts'

async function planOf(paths: ModelPaths): Promise<BiasPlan> {
  const words: EngineCustomWord[] = BENCH_CUSTOM_WORDS
  const dictionary = await readDictionary(paths.dict)
  const spelled = await letterToSound(unknownWords(words, dictionary))
  return planBias(words, dictionary, spelled)
}

function cpuMs(run: () => void): number {
  const before = process.cpuUsage()
  run()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

export async function decoderSetup(
  native: PocketsphinxNative,
  paths: ModelPaths,
  search: string[],
  rounds = 3,
): Promise<Record<string, number | string>> {
  const plan = await planOf(paths)
  const dictionary = writePlanDictionary(paths, plan.additions)
  const totals = { open: 0, switch: 0, openWithPlan: 0, setUpWithPlan: 0 }
  try {
    for (let r = 0; r < rounds; r++) {
      let decoder: PocketsphinxDecoder | null = null
      totals.open += cpuMs(() => {
        decoder = PocketsphinxDecoder.open(native, paths, search)
      })
      const opened = decoder as unknown as PocketsphinxDecoder
      totals.switch += cpuMs(() => opened.useBias(plan))
      opened.free()
      totals.openWithPlan += cpuMs(() => {
        decoder = PocketsphinxDecoder.open(native, paths, search, dictionary)
      })
      const withPlan = decoder as unknown as PocketsphinxDecoder
      totals.setUpWithPlan += cpuMs(() => withPlan.useBias(plan, dictionary))
      withPlan.free()
    }
  } finally {
    dictionary.remove()
  }
  const each = (ms: number) => round(ms / rounds, 0)
  return {
    'live decoder: open (model dictionary) CPU ms': each(totals.open),
    [`live decoder: set up for the bench's ${BENCH_CUSTOM_WORDS.length} custom words after that (dictionary written and read again, search built) CPU ms`]:
      each(totals.switch),
    'live decoder: open with the custom words dictionary CPU ms': each(totals.openWithPlan),
    'live decoder: set up after that (search only) CPU ms': each(totals.setUpWithPlan),
    'custom words plan: dictionary entries added': plan.additions.length,
  }
}
