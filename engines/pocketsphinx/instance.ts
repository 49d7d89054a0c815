import {
  type EngineContext,
  type EngineInstance,
  type EngineTranscribeRequest,
  type EngineTranscribeResult,
  errors,
} from '../../sdk/plugin.ts'
import { type BiasPlan, planBias, unknownWords } from './custom-words.ts'
import type { PocketsphinxDecoder } from './decoder.ts'
import { checkInstallation, INSTALL_FIX } from './installation.ts'
import { type ModelPaths, type PocketsphinxOptions, searchArguments } from './options.ts'
import { letterToSound, type PronunciationDictionary, readDictionary } from './pronunciations.ts'
import { toInt16, toTranscript } from './transcript.ts'

/**
 * A pocketsphinx engine instance: one decoder, loaded once and reused. A decoder is not thread-safe; the
 * engine runner gives each instance one utterance at a time.
 */
export class PocketsphinxEngine implements EngineInstance {
  readonly #context: EngineContext<PocketsphinxOptions>
  #decoder: PocketsphinxDecoder | null = null
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
    const { language } = this.#context.options
    if (request.samples.length === 0) return { text: '', confidence: null, words: [], segments: [], language }
    await this.load()
    const decoder = this.#decoder as PocketsphinxDecoder
    const plan = request.customWords.length > 0 ? await this.#planFor(request.customWords) : null
    decoder.useBias(plan)
    // One native call for the whole piece: it cannot be interrupted, so the signal is only checked before.
    return toTranscript(decoder.decode(toInt16(request.samples)), language, plan?.canonical)
  }

  async close(): Promise<void> {
    await this.#loading?.catch(() => {})
    this.#decoder?.free()
    this.#decoder = null
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
    this.#decoder = PocketsphinxDecoder.open(native, installation.paths, searchArguments(options))
    this.#paths = installation.paths
    logger.info(
      { ...installation.paths, ms: Math.round(performance.now() - started) },
      'pocketsphinx model loaded',
    )
  }
}
