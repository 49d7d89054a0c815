/** Builds the sherpa-onnx OfflineRecognizer config from the options and a validated model. */
import path from 'node:path'
import type { ModelSpec } from './model-spec.ts'
import type { SherpaOnnxOptions } from './options.ts'
import { STREAMING_FAMILIES, TRANSDUCER_FAMILIES } from './options.ts'

export type DecodingMethod = 'greedy_search' | 'modified_beam_search'

/** Transducers default to modified_beam_search (custom words need it); every other family is greedy-only. */
export function decodingMethodOf(
  options: SherpaOnnxOptions,
  family: ModelSpec['family'] | null,
): DecodingMethod {
  if (family && STREAMING_FAMILIES.includes(family)) return options.decodingMethod ?? 'greedy_search'
  if (!family || !TRANSDUCER_FAMILIES.includes(family)) return 'greedy_search'
  return options.decodingMethod ?? 'modified_beam_search'
}

export interface RecognizerInputs {
  spec: ModelSpec
  options: SherpaOnnxOptions
  /** bpe.vocab to use for hotwords (transducers under beam search), else null. */
  bpeVocab: string | null
  /** Whisper / SenseVoice language actually passed ('' = detect). */
  language: string
}

function file(spec: ModelSpec, role: keyof ModelSpec['files']): string {
  const name = spec.files[role]
  return name === undefined ? '' : path.join(spec.dir, name)
}

function familyBlock({ spec, options, language }: RecognizerInputs): Record<string, unknown> {
  switch (spec.family) {
    case 'nemo-transducer':
    case 'zipformer-transducer':
      return {
        transducer: {
          encoder: file(spec, 'encoder'),
          decoder: file(spec, 'decoder'),
          joiner: file(spec, 'joiner'),
        },
        modelType: spec.family === 'nemo-transducer' ? 'nemo_transducer' : 'transducer',
      }
    case 'streaming-zipformer-transducer':
      // No modelType: sherpa-onnx reads it from the encoder's metadata (zipformer, zipformer2…).
      return {
        transducer: {
          encoder: file(spec, 'encoder'),
          decoder: file(spec, 'decoder'),
          joiner: file(spec, 'joiner'),
        },
      }
    case 'nemo-ctc':
      return { nemoCtc: { model: file(spec, 'model') } }
    case 'whisper':
      return {
        whisper: {
          encoder: file(spec, 'encoder'),
          decoder: file(spec, 'decoder'),
          language,
          task: options.task,
        },
      }
    case 'moonshine':
      return {
        moonshine: {
          preprocessor: file(spec, 'preprocessor'),
          encoder: file(spec, 'encoder'),
          uncachedDecoder: file(spec, 'uncachedDecoder'),
          cachedDecoder: file(spec, 'cachedDecoder'),
        },
      }
    case 'sense-voice':
      return {
        senseVoice: {
          model: file(spec, 'model'),
          language,
          useInverseTextNormalization: options.useItn ? 1 : 0,
        },
      }
  }
}

export function recognizerConfig(inputs: RecognizerInputs): Record<string, unknown> {
  const { spec, options, bpeVocab } = inputs
  const decodingMethod = decodingMethodOf(options, spec.family)
  const hotwordReady = decodingMethod === 'modified_beam_search' && bpeVocab !== null
  return {
    featConfig: { sampleRate: 16000, featureDim: spec.featureDim },
    modelConfig: {
      ...familyBlock(inputs),
      tokens: file(spec, 'tokens'),
      numThreads: options.numThreads,
      provider: options.provider,
      debug: 0,
      ...(hotwordReady ? { modelingUnit: 'bpe', bpeVocab } : {}),
    },
    decodingMethod,
    maxActivePaths: options.maxActivePaths,
    hotwordsScore: options.hotwordsScore,
    // Streaming models: the kernel decides where an utterance ends (its VAD, the client's commit), so the
    // recognizer's own endpoint detection stays off.
    ...(STREAMING_FAMILIES.includes(spec.family) ? { enableEndpoint: 0 } : {}),
  }
}
