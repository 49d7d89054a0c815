import {
  type EngineContext,
  type EngineInstance,
  type EngineStream,
  type EngineStreamOptions,
  type EngineTranscribeRequest,
  type EngineTranscribeResult,
  errors,
  floatToPcm16,
  type TranscriptWord,
} from '../../sdk/plugin.ts'
import { locateLibrary } from './library.ts'
import { modelProblem, voskModel } from './model.ts'
import type { Pointer, VoskLibrary } from './native.ts'
import type { VoskOptions } from './options.ts'
import { BLOCK_SAMPLES } from './pcm.ts'
import { toResult, wordsOf } from './result.ts'
import { VoskStream } from './stream.ts'

const SAMPLE_RATE = 16000
/** Samples between two looks at the abort signal (the event loop runs there). */
const YIELD_SAMPLES = 8000

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
    const language = this.#language()
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

  /** Opens a live utterance: a recognizer of its own, fed as the audio comes (stream.ts). No custom words. */
  async openStream(_options: EngineStreamOptions): Promise<EngineStream> {
    await this.load()
    const library = this.#library as VoskLibrary
    if (!this.#model) throw errors.ENGINE_UNAVAILABLE('the vosk engine is closed')
    const recognizer = library.native.vosk_recognizer_new(this.#model, SAMPLE_RATE)
    if (!recognizer) throw errors.ENGINE_FAILED('vosk: vosk_recognizer_new returned NULL.')
    library.native.vosk_recognizer_set_words(recognizer, 1)
    return new VoskStream(library.native, recognizer, this.#language())
  }

  #language(): string | undefined {
    return voskModel(this.#context.options, this.#context.modelsDir).languages.find((l) => l !== '*')
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
    for (let at = 0; at < samples.length; at += BLOCK_SAMPLES) {
      const pcm = floatToPcm16(samples.subarray(at, at + BLOCK_SAMPLES))
      if (native.vosk_recognizer_accept_waveform(recognizer, pcm, pcm.length) === 1) {
        utterances.push(wordsOf(native.vosk_recognizer_result(recognizer)))
      }
      if ((at + BLOCK_SAMPLES) % YIELD_SAMPLES === 0) {
        await new Promise((resolve) => setImmediate(resolve))
        signal?.throwIfAborted()
      }
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
