/**
 * What a request asks of the engine it reaches, checked once that engine is known (a `model` may name an
 * engine or a catalog model, whose capabilities differ): log probabilities and translation need engines
 * that have them (a 400 naming the engines that do), keywords on an engine without custom words are
 * accepted and reported as not applied (the `X-Dictum-Not-Applied` header).
 */

import type { AcquiredEngine, EngineRegistry } from '../../kernel/registry.ts'
import { enginesWithLogprobs } from '../../transcription/logprobs.ts'
import { openaiErrors } from './error-codes.ts'

/** The response header naming fields a request sent that the engine did not use, comma-separated. */
export const NOT_APPLIED_HEADER = 'x-dictum-not-applied'

export interface EngineAsks {
  keywords: boolean
  logprobs: boolean
  translate: boolean
}

/** The names of engines with a capability, for the error that sends the client to them. */
async function enginesThatCan(
  registry: EngineRegistry,
  capability: 'logprobs' | 'translate',
): Promise<string> {
  const all = await registry.list()
  const ids =
    capability === 'logprobs'
      ? enginesWithLogprobs(all)
      : all.filter((e) => e.capabilities.translate).map((e) => e.id)
  return ids.length > 0 ? ids.join(', ') : 'none is configured'
}

/** Throws when the engine cannot do what is asked; returns the fields it will not apply. */
export async function checkEngine(
  engine: AcquiredEngine,
  asks: EngineAsks,
  registry: EngineRegistry,
): Promise<string[]> {
  if (asks.translate && !engine.capabilities.translate) {
    throw openaiErrors.TRANSLATION_UNSUPPORTED(
      `${engine.displayName} transcribes only. Engines that translate: ${await enginesThatCan(registry, 'translate')} (sherpa-onnx with a Whisper model, remote with translate: true).`,
      { extra: { param: 'model' } },
    )
  }
  if (asks.logprobs && !engine.capabilities.logprobs) {
    throw openaiErrors.LOGPROBS_UNSUPPORTED(
      `${engine.displayName} gives no token or word confidences. Engines that do: ${await enginesThatCan(registry, 'logprobs')}.`,
      { extra: { param: 'include' } },
    )
  }
  return asks.keywords && !engine.capabilities.customWords ? ['keywords'] : []
}
