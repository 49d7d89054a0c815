/** What the engine can do with the model its options select. */

import type { EngineCapabilities } from '../../sdk/plugin.ts'
import { describeModel } from './model-spec.ts'
import type { SherpaFamily, SherpaOnnxOptions } from './options.ts'
import { STREAMING_FAMILIES, TRANSDUCER_FAMILIES } from './options.ts'
import { decodingMethodOf } from './recognizer-config.ts'

/**
 * Longest piece per call, by family. Whisper: sherpa-onnx keeps at most 2950 feature frames (29.5 s) and
 * drops the rest, so 29 s leaves a margin. The NeMo and zipformer encoders attend over the whole piece
 * (memory and time grow with the square of its length), so pieces stay at a minute: the VAD cuts at pauses
 * anyway, and longer pieces bring no accuracy. Moonshine and SenseVoice were trained on clips under 30 s.
 */
export const MAX_AUDIO_SECONDS: Record<SherpaFamily, number> = {
  'nemo-transducer': 60,
  'zipformer-transducer': 60,
  // Decoded chunk by chunk with a bounded left context: cost grows with the length, not its square.
  'streaming-zipformer-transducer': 120,
  'nemo-ctc': 60,
  whisper: 29,
  moonshine: 30,
  'sense-voice': 30,
}

export function supportsCustomWords(options: SherpaOnnxOptions, family: SherpaFamily | null): boolean {
  return (
    family !== null &&
    TRANSDUCER_FAMILIES.includes(family) &&
    decodingMethodOf(options, family) === 'modified_beam_search'
  )
}

export function sherpaCapabilities(options: SherpaOnnxOptions): EngineCapabilities {
  const model = describeModel(options)
  const familyLimit = model.family ? MAX_AUDIO_SECONDS[model.family] : 30
  return {
    customWords: supportsCustomWords(options, model.family),
    wordTimestamps: false,
    segmentTimestamps: false,
    languages: model.languages.length > 0 ? model.languages : ['*'],
    maxAudioSeconds: Math.min(
      options.maxAudioSeconds ?? familyLimit,
      model.family === 'whisper' ? 29 : Infinity,
    ),
    streaming: model.family !== null && STREAMING_FAMILIES.includes(model.family),
    // Transducers report each token's log-probability (result.ts tokensOf).
    logprobs:
      model.family !== null &&
      (TRANSDUCER_FAMILIES.includes(model.family) || STREAMING_FAMILIES.includes(model.family)),
    translate: model.family === 'whisper',
  }
}
