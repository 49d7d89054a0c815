/**
 * pocketsphinx engine: CMU PocketSphinx 0.8 (Debian's libpocketsphinx3) through koffi, with the US English
 * model of `pocketsphinx-en-us`. Small and fast, less accurate than the sherpa-onnx models. Custom words are
 * added to its dictionary and favoured by its language model (custom-words.ts).
 */

import { defineEngine, type EngineContext, type EngineProbe } from '../../sdk/plugin.ts'
import { checkInstallation, INSTALL_FIX } from './installation.ts'
import { PocketsphinxEngine } from './instance.ts'
import { type PocketsphinxOptions, PocketsphinxOptionsSchema, resolveModelPaths } from './options.ts'

/** Longest piece handed to the decoder at once; the kernel's VAD cuts longer audio at pauses. */
export const MAX_AUDIO_SECONDS = 60
/** Memory of one engine process, for `speech.concurrency: "auto"`. */
export const MEMORY_ESTIMATE_MB = 160

async function probe(context: EngineContext<PocketsphinxOptions>): Promise<EngineProbe> {
  const installation = await checkInstallation(context.options, context.modelsDir)
  return installation.ok
    ? { available: true }
    : { available: false, reason: installation.reason, fix: INSTALL_FIX }
}

export default defineEngine({
  id: 'pocketsphinx',
  displayName: (options) =>
    options.language === 'en' ? 'PocketSphinx (en-US)' : `PocketSphinx (${options.language})`,
  description: 'CMU PocketSphinx with the Debian US English model: light and fast, modest accuracy.',
  optionsSchema: PocketsphinxOptionsSchema,
  capabilities: (options) => ({
    customWords: true,
    wordTimestamps: true,
    segmentTimestamps: true,
    languages: [options.language],
    maxAudioSeconds: MAX_AUDIO_SECONDS,
    streaming: options.streaming,
    // Word posteriors from the lattice (transcript.ts).
    logprobs: true,
  }),
  isolation: 'process',
  // A host with the en-US model loaded and decoding: ~150 MB resident, measured (docs/engines.md).
  memoryEstimateMb: MEMORY_ESTIMATE_MB,
  probe,
  // The model's own dictionary: what learning from corrections compares heard and meant words by.
  pronunciationDictionary: (context) => resolveModelPaths(context.options, context.modelsDir).dict,
  create: (context) => new PocketsphinxEngine(context),
})
