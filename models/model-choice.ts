/**
 * What the `model` field of `POST /v1/audio/transcriptions` selects, as speaches and Ollama do it:
 * - OpenAI's own names (`gpt-transcribe`, `gpt-live-transcribe`, `whisper-1`, `gpt-4o-transcribe`, …) or no model: the selected engine
 *   (`speech.engine`), so OpenAI clients work unchanged;
 * - an engine id (`pocketsphinx`, `sherpa-onnx`, a plugin's): that engine, with its configured options;
 * - an installed catalog model (`parakeet-tdt-0.6b-v2`): the engine that runs it, with that model, loaded on
 *   demand and unloaded after it has been idle (kernel/registry.ts);
 * - anything else is an error in OpenAI's shape that names the models there are: a catalog model that is not
 *   installed (404, with the pull command), a catalog entry that is not a speech model (400), an unknown name
 *   (404).
 */
import { errors } from '../errors/catalogue.ts'
import type { EngineRegistry } from '../kernel/registry.ts'
import type { ModelManager } from './manager.ts'

export const OPENAI_MODEL_NAMES = [
  'gpt-transcribe',
  'gpt-live-transcribe',
  'gpt-realtime-whisper',
  'whisper-1',
  'gpt-4o-transcribe',
  'gpt-4o-mini-transcribe',
  'gpt-4o-mini-transcribe-2025-12-15',
  'gpt-4o-transcribe-diarize',
] as const

export interface ModelChoice {
  engineId?: string
  /** A catalog model for that engine, instead of the one its options name. */
  model?: string
}

export async function chooseModel(
  model: string | undefined,
  engines: EngineRegistry,
  models: ModelManager,
): Promise<ModelChoice> {
  if (model === undefined || (OPENAI_MODEL_NAMES as readonly string[]).includes(model)) return {}
  if (engines.ids().includes(model)) return { engineId: model }
  const entry = models.catalog.find((e) => e.id === model)
  if (entry && !engines.ids().includes(entry.engine)) {
    throw errors.INVALID_REQUEST(
      `${model} is not a speech model (it is used by "${entry.engine}"). ${await available(engines, models)}`,
      { extra: { param: 'model' } },
    )
  }
  if (entry && !(await models.isInstalled(model))) {
    throw errors.MODEL_NOT_FOUND(
      `${model} is not installed (run: dictum models pull ${model}). ${await available(engines, models)}`,
      { extra: { param: 'model', fix: `dictum models pull ${model}` } },
    )
  }
  if (entry) return { engineId: entry.engine, model }
  throw errors.MODEL_NOT_FOUND(`${model}. ${await available(engines, models)}`, { extra: { param: 'model' } })
}

/** The names a client may send: OpenAI's, the engines, the installed speech models. */
async function available(engines: EngineRegistry, models: ModelManager): Promise<string> {
  const installed: string[] = []
  for (const entry of models.catalog) {
    if (engines.ids().includes(entry.engine) && (await models.isInstalled(entry.id))) installed.push(entry.id)
  }
  return `Available models: ${[...OPENAI_MODEL_NAMES, ...engines.ids(), ...installed].join(', ')}.`
}
