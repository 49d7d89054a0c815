import {
  type EngineContext,
  type EngineInstance,
  type EngineStream,
  type EngineStreamOptions,
  type EngineTranscribeRequest,
  type EngineTranscribeResult,
  errors,
  letterToSound,
  type PronunciationDictionary,
  readDictionary,
} from '../../sdk/plugin.ts'
import { type BiasPlan, planBias, unknownWords } from './custom-words.ts'
import type { PocketsphinxDecoder } from './decoder.ts'
import { checkInstallation, INSTALL_FIX } from './installation.ts'
import { liveSearchArguments, type ModelPaths, type PocketsphinxOptions, searchArguments } from './options.ts'
import { PocketsphinxStream } from './stream.ts'
import { toInt16, toTranscript } from './transcript.ts'

/**
 * A pocketsphinx engine instance: one batch decoder, loaded once and reused for `transcribe` and for the
 * final pass of streams, and live decoders for the streams open at once (stream.ts). Calls into the library
 * are synchronous, so a decoder never serves two calls at once.
 */
export class PocketsphinxEngine implements EngineInstance {
  readonly #context: EngineContext<PocketsphinxOptions>
  #decoder: PocketsphinxDecoder | null = null
  /** Opens a live decoder of the loaded model, with the live pass's lighter search (set by load()). */
  #newDecoder: (() => PocketsphinxDecoder) | null = null
  /** Live decoders with no stream, ready for the next one. */
  readonly #idle: PocketsphinxDecoder[] = []
  /** Live decoders of the streams going on. */
  readonly #busy = new Set<PocketsphinxDecoder>()
  #loading: Promise<void> | null = null
  #paths: ModelPaths | null = null
  /** The model's pronunciation dictionary, read the first time custom words come. */
  #dictionary: Promise<PronunciationDictionary> | null = null
  /** The plan for the last custom-words list seen (a new dictionary version builds a new one). */
  #plan: { words: string; plan: Promise<BiasPlan> } | null = null

  constructor(context: EngineContext<PocketsphinxOptions>) {
    this.#context = context
  }

  load(): Promise<void> {
    if (this.#decoder) return Promise.resolve()
    this.#loading ??= this.#open().finally(() => {
      this.#loading = null
    })
    return this.#loading
  }

  async transcribe(request: EngineTranscribeRequest, signal?: AbortSignal): Promise<EngineTranscribeResult> {
    signal?.throwIfAborted()
    if (request.samples.length === 0) return this.#decodeWhole(new Int16Array(0), null)
    await this.load()
    const plan = request.customWords.length > 0 ? await this.#planFor(request.customWords) : null
    // One native call for the whole piece: it cannot be interrupted, so the signal is only checked before.
    return this.#decodeWhole(toInt16(request.samples), plan)
  }

  /**
   * Opens a live utterance with its custom words, on a live decoder of its own when one is free (an idle
   * one, else a new one while fewer than `maxLiveDecoders` exist); otherwise it takes one later (stream.ts).
   */
  async openStream(options: EngineStreamOptions): Promise<EngineStream> {
    await this.load()
    const plan = options.customWords.length > 0 ? await this.#planFor(options.customWords) : null
    if (!this.#decoder) throw new Error('the pocketsphinx engine is closed')
    return new PocketsphinxStream({
      acquire: () => this.#acquire(),
      plan,
      decodeWhole: (pcm, streamPlan) => this.#decodeWhole(pcm, streamPlan),
      release: (done) => this.#release(done),
    })
  }

  /** Live decoders: held by streams going on, and idle (kept for the next stream). */
  get liveDecoders(): { busy: number; idle: number } {
    return { busy: this.#busy.size, idle: this.#idle.length }
  }

  async close(): Promise<void> {
    await this.#loading?.catch(() => {})
    this.#decoder?.free()
    this.#decoder = null
    for (const decoder of this.#idle.splice(0)) decoder.free()
    // Streams still open lose their decoder now; their finish then fails, their cancel is harmless.
    for (const decoder of this.#busy) decoder.free()
    this.#busy.clear()
  }

  /** A whole piece through the batch decoder: `transcribe`, and the final pass of a stream. */
  #decodeWhole(pcm: Int16Array, plan: BiasPlan | null): EngineTranscribeResult {
    const { language } = this.#context.options
    if (pcm.length === 0) return { text: '', confidence: null, words: [], segments: [], language }
    if (!this.#decoder) throw new Error('the pocketsphinx engine is closed')
    this.#decoder.useBias(plan)
    return toTranscript(this.#decoder.decode(pcm), language, plan?.canonical)
  }

  /**
   * A live decoder for a stream: an idle one, a new one while fewer than `maxLiveDecoders` exist, else null.
   * Each holds a copy of the model (~95 MB, ~0.2 s to open), so the bound is what keeps a host's memory
   * flat however many utterances pile up on it.
   */
  #acquire(): PocketsphinxDecoder | null {
    if (!this.#decoder) return null
    const total = this.#busy.size + this.#idle.length
    const decoder =
      this.#idle.pop() ??
      (total < this.#context.options.maxLiveDecoders
        ? (this.#newDecoder as () => PocketsphinxDecoder)()
        : null)
    if (decoder) this.#busy.add(decoder)
    return decoder
  }

  /** A stream's live decoder back: kept idle for the next stream, or freed (closed). */
  #release(decoder: PocketsphinxDecoder): void {
    if (!this.#busy.delete(decoder)) return
    if (this.#decoder) this.#idle.push(decoder)
    else decoder.free()
  }

  /** The bias plan of these custom words, built once per list (dictionary version) and then reused. */
  #planFor(words: EngineTranscribeRequest['customWords']): Promise<BiasPlan> {
    const key = JSON.stringify(words)
    if (this.#plan?.words === key) return this.#plan.plan
    const plan = (async () => {
      this.#dictionary ??= readDictionary((this.#paths as ModelPaths).dict)
      const dictionary = await this.#dictionary
      const unknown = unknownWords(words, dictionary)
      const spelled = await letterToSound(unknown).catch((err: Error) => {
        this.#context.logger.warn(
          { error: err.message, words: unknown.length },
          'pocketsphinx: letter to sound (espeak-ng) failed; custom words it would spell are left out unless their aliases are known words',
        )
        return new Map<string, string[]>()
      })
      const built = planBias(words, dictionary, spelled)
      if (built.skipped.length > 0)
        this.#context.logger.warn({ skipped: built.skipped }, 'pocketsphinx: some custom words are left out')
      return built
    })()
    this.#plan = { words: key, plan }
    plan.catch(() => {
      if (this.#plan?.plan === plan) this.#plan = null
    })
    return plan
  }

  async #open(): Promise<void> {
    const { options, modelsDir, logger } = this.#context
    const installation = await checkInstallation(options, modelsDir)
    if (!installation.ok) {
      throw errors.MODEL_NOT_INSTALLED(`pocketsphinx: ${installation.reason}.`, {
        extra: { fix: INSTALL_FIX },
      })
    }
    const started = performance.now()
    const [{ loadNative }, { PocketsphinxDecoder }] = await Promise.all([
      import('./native.ts'),
      import('./decoder.ts'),
    ])
    const native = await loadNative(installation.libraries)
    const live = liveSearchArguments(options)
    this.#newDecoder = () => PocketsphinxDecoder.open(native, installation.paths, live)
    this.#decoder = PocketsphinxDecoder.open(native, installation.paths, searchArguments(options))
    this.#paths = installation.paths
    logger.info(
      { ...installation.paths, ms: Math.round(performance.now() - started) },
      'pocketsphinx model loaded',
    )
  }
}
