import type {
  EngineContext,
  EngineInstance,
  EngineTranscribeRequest,
  EngineTranscribeResult,
} from '../../kernel/contracts/engine.ts'
import { errors } from '../../kernel/errors.ts'
import type { PocketsphinxDecoder } from './decoder.ts'
import { checkInstallation, INSTALL_FIX } from './installation.ts'
import { type PocketsphinxOptions, searchArguments } from './options.ts'
import { toInt16, toTranscript } from './transcript.ts'

/**
 * A pocketsphinx engine instance: one decoder, loaded once and reused. A decoder is not thread-safe; the
 * engine runner gives each instance one utterance at a time.
 */
export class PocketsphinxEngine implements EngineInstance {
  readonly #context: EngineContext<PocketsphinxOptions>
  #decoder: PocketsphinxDecoder | null = null
  #loading: Promise<void> | null = null

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
    // One native call for the whole piece: it cannot be interrupted, so the signal is only checked before.
    return toTranscript(decoder.decode(toInt16(request.samples)), language)
  }

  async close(): Promise<void> {
    await this.#loading?.catch(() => {})
    this.#decoder?.free()
    this.#decoder = null
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
    logger.info(
      { ...installation.paths, ms: Math.round(performance.now() - started) },
      'pocketsphinx model loaded',
    )
  }
}
