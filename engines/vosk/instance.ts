import {
  type EngineContext,
  type EngineInstance,
  type EngineTranscribeRequest,
  type EngineTranscribeResult,
  errors,
  type TranscriptWord,
} from '../../sdk/plugin.ts'
import { locateLibrary } from './library.ts'
import { modelProblem, voskModel } from './model.ts'
import type { Pointer, VoskLibrary } from './native.ts'
import type { VoskOptions } from './options.ts'
import { toResult, wordsOf } from './result.ts'

const SAMPLE_RATE = 16000
/** Samples per `accept_waveform` call; between calls the event loop runs, so an abort can arrive. */
const CHUNK_SAMPLES = 8000

/**
 * A Vosk engine instance: the model is loaded once and kept; each transcription gets its own recognizer,
 * freed when it is done (a recognizer holds one stream's decoding state).
 */
export class VoskEngine implements EngineInstance {
  readonly #context: EngineContext<VoskOptions>
  #library: VoskLibrary | null = null
  #model: Pointer | null = null
  #loading: Promise<void> | null = null

  constructor(context: EngineContext<VoskOptions>) {
    this.#context = context
  }

  /** The library's version (after load), e.g. for `dictum engines` and tests. */
  get libraryVersion(): VoskLibrary['version'] | null {
    return this.#library?.version ?? null
  }

  load(): Promise<void> {
    if (this.#model) return Promise.resolve()
    this.#loading ??= this.#open().finally(() => {
      this.#loading = null
    })
    return this.#loading
  }

  async transcribe(request: EngineTranscribeRequest, signal?: AbortSignal): Promise<EngineTranscribeResult> {
    signal?.throwIfAborted()
    const language = voskModel(this.#context.options, this.#context.modelsDir).languages.find(
      (l) => l !== '*',
    )
    if (request.samples.length === 0) return toResult([], language)
    await this.load()
    const { native } = this.#library as VoskLibrary
    const recognizer = native.vosk_recognizer_new(this.#model as Pointer, SAMPLE_RATE)
    if (!recognizer) throw errors.ENGINE_FAILED('vosk: vosk_recognizer_new returned NULL.')
    try {
      native.vosk_recognizer_set_words(recognizer, 1)
      return toResult(await this.#decode(recognizer, request.samples, signal), language)
    } finally {
      native.vosk_recognizer_free(recognizer)
    }
  }

  async close(): Promise<void> {
    await this.#loading?.catch(() => {})
    if (this.#model && this.#library) this.#library.native.vosk_model_free(this.#model)
    this.#model = null
  }

  /** Feeds the samples in chunks; an utterance the endpointer closes midway is collected as it ends. */
  async #decode(
    recognizer: Pointer,
    samples: Float32Array,
    signal?: AbortSignal,
  ): Promise<TranscriptWord[][]> {
    const { native } = this.#library as VoskLibrary
    const utterances: TranscriptWord[][] = []
    for (let at = 0; at < samples.length; at += CHUNK_SAMPLES) {
      const pcm = toPcm16(samples.subarray(at, at + CHUNK_SAMPLES))
      if (native.vosk_recognizer_accept_waveform(recognizer, pcm, pcm.length) === 1) {
        utterances.push(wordsOf(native.vosk_recognizer_result(recognizer)))
      }
      await new Promise((resolve) => setImmediate(resolve))
      signal?.throwIfAborted()
    }
    utterances.push(wordsOf(native.vosk_recognizer_final_result(recognizer)))
    return utterances
  }

  async #open(): Promise<void> {
    const { options, modelsDir, logger } = this.#context
    const library = locateLibrary(options.libraryPath)
    if (!library.ok)
      throw errors.ENGINE_UNAVAILABLE(`vosk: ${library.reason}.`, { extra: { fix: library.fix } })
    const spec = voskModel(options, modelsDir)
    const problem = await modelProblem(spec)
    if (problem) throw errors.MODEL_NOT_INSTALLED(`vosk: ${problem}.`, { extra: { fix: spec.fix } })
    const started = performance.now()
    const { loadVosk } = await import('./native.ts')
    const loaded = await loadVosk(library.path)
    loaded.native.vosk_set_log_level(-1)
    const model = loaded.native.vosk_model_new(spec.dir)
    if (!model) {
      throw errors.MODEL_INVALID(
        `vosk: libvosk could not load ${spec.catalogId ?? 'the model in speech.engines.vosk.modelDir'}.`,
        {
          extra: { fix: spec.fix },
        },
      )
    }
    this.#library = loaded
    this.#model = model
    logger.info(
      { dir: spec.dir, libvosk: loaded.version.version, ms: Math.round(performance.now() - started) },
      'vosk model loaded',
    )
  }
}

/** Float samples -> little-endian 16-bit PCM bytes, as `vosk_recognizer_accept_waveform` takes them. */
export function toPcm16(samples: Float32Array): Uint8Array {
  const out = Buffer.alloc(samples.length * 2)
  for (let i = 0; i < samples.length; i++) {
    out.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round((samples[i] ?? 0) * 32768))), i * 2)
  }
  return out
}
