/**
 * sherpa-onnx engine: offline recognition with NeMo Parakeet / zipformer transducers, NeMo CTC, Whisper,
 * Moonshine and SenseVoice models, and streaming recognition (live partials) with streaming zipformer
 * transducers, through sherpa-onnx-node. Transducers under
 * modified_beam_search take the dictionary's custom words as per-request hotwords.
 */

import { stat } from 'node:fs/promises'
import path from 'node:path'
import { defineEngine, type EngineContext, type EngineProbe } from '../../sdk/plugin.ts'
import { sherpaCapabilities } from './capabilities.ts'
import { SHERPA_ONNX_CATALOG } from './catalog.ts'
import { SherpaOnnxEngine } from './instance.ts'
import { describeModel, REQUIRED_ROLES, resolveModel } from './model-spec.ts'
import { sherpaOnnxMissing } from './native.ts'
import { type SherpaOnnxOptions, SherpaOnnxOptionsSchema } from './options.ts'

/** Cheap check: library files present, model folder present with every required file (no native code). */
async function probe(context: EngineContext<SherpaOnnxOptions>): Promise<EngineProbe> {
  const missingLibrary = sherpaOnnxMissing()
  if (missingLibrary) return { available: false, reason: missingLibrary, fix: 'npm install sherpa-onnx-node' }
  const description = describeModel(context.options)
  if (description.problem) {
    return {
      available: false,
      reason: description.problem,
      fix: 'Set speech.engines.sherpa-onnx.model or modelDir.',
    }
  }
  const spec = await resolveModel(context.options, context.modelsDir)
  const dir = await stat(spec.dir).catch(() => null)
  const name = spec.catalogId ?? 'the model in modelDir'
  if (!dir?.isDirectory()) return { available: false, reason: `${name} is not installed`, fix: spec.fix }
  for (const role of REQUIRED_ROLES[spec.family]) {
    const file = spec.files[role]
    const info = file === undefined ? null : await stat(path.join(spec.dir, file)).catch(() => null)
    if (!info?.isFile() || info.size === 0) {
      return { available: false, reason: `${name} has no usable ${file ?? `${role} file`}`, fix: spec.fix }
    }
  }
  return { available: true }
}

/** A model in a folder of its own (modelDir): its size is not known without reading it. */
const UNKNOWN_MODEL_MB = 1024

/**
 * Memory of one engine process, for `speech.concurrency: "auto"`: the model's weights (int8 ONNX barely
 * compresses, so about the archive's size) once more for onnxruntime's copies and working memory, plus the
 * process itself. A rough figure: Parakeet 0.6B ~1.2 GB, a small zipformer a few hundred MB.
 */
function memoryEstimateMb(options: SherpaOnnxOptions): number {
  const id = describeModel(options).catalogId
  const entry = SHERPA_ONNX_CATALOG.find((e) => e.id === id)
  return entry ? Math.ceil((entry.sizeBytes / 1024 / 1024) * 2) + 200 : UNKNOWN_MODEL_MB
}

export default defineEngine({
  id: 'sherpa-onnx',
  displayName: (options) => describeModel(options).displayName,
  description:
    'Local recognition with sherpa-onnx (Parakeet, zipformer, Whisper, Moonshine, SenseVoice models).',
  optionsSchema: SherpaOnnxOptionsSchema,
  capabilities: sherpaCapabilities,
  isolation: 'process',
  memoryEstimateMb,
  probe,
  catalog: SHERPA_ONNX_CATALOG,
  models: (options) => {
    const model = describeModel(options)
    return model.catalogId !== null && model.problem === null ? [model.catalogId] : []
  },
  create: (context) => new SherpaOnnxEngine(context),
})
