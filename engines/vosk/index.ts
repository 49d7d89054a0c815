/**
 * Vosk engine: Kaldi-based offline recognition through libvosk (the library the `vosk` npm package ships),
 * bound with koffi. Small models, word timings and word confidences; no custom words (a Vosk grammar restricts
 * recognition to listed phrases, it does not boost words).
 */

import { defineEngine, type EngineContext, type EngineProbe } from '../../sdk/plugin.ts'
import { VOSK_CATALOG } from './catalog.ts'
import { VoskEngine } from './instance.ts'
import { locateLibrary } from './library.ts'
import { modelProblem, voskModel } from './model.ts'
import { type VoskOptions, VoskOptionsSchema } from './options.ts'

/** Library file present, model folder complete; no native code (it runs in the API process). */
async function probe(context: EngineContext<VoskOptions>): Promise<EngineProbe> {
  const library = locateLibrary(context.options.libraryPath)
  if (!library.ok) return { available: false, reason: library.reason, fix: library.fix }
  const spec = voskModel(context.options, context.modelsDir)
  const problem = await modelProblem(spec)
  return problem ? { available: false, reason: problem, fix: spec.fix } : { available: true }
}

export default defineEngine({
  id: 'vosk',
  // modelsDir does not change the name: the catalog's name, or the folder's.
  displayName: (options) => voskModel(options, '').displayName,
  description: 'Vosk (Kaldi) offline recognition: small models, word timings and confidences.',
  optionsSchema: VoskOptionsSchema,
  capabilities: (options) => ({
    customWords: false,
    wordTimestamps: true,
    segmentTimestamps: true,
    languages: voskModel(options, '').languages,
    maxAudioSeconds: options.maxAudioSeconds,
    streaming: true,
    // Word confidences (result.ts).
    logprobs: true,
  }),
  isolation: 'process',
  probe,
  catalog: VOSK_CATALOG,
  models: (options) => {
    const spec = voskModel(options, '')
    return spec.catalogId !== null && spec.problem === null ? [spec.catalogId] : []
  },
  create: (context) => new VoskEngine(context),
})
