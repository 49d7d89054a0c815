/** A loaded sherpa-onnx model: validates, loads through the async API, transcribes one piece at a time. */
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import {
  type EngineContext,
  type EngineInstance,
  type EngineStream,
  type EngineTranscribeRequest,
  type EngineTranscribeResult,
  errors,
  isDictumError,
} from '../../sdk/plugin.ts'
import { supportsCustomWords } from './capabilities.ts'
import { applyCanonicalForms, type HotwordPlan, planHotwords } from './hotwords.ts'
import { configuredLanguageProblem, languageToUse, resultLanguage } from './languages.ts'
import { type ModelSpec, resolveModel } from './model-spec.ts'
import {
  decodeToJson,
  loadSherpaOnnx,
  type OfflineRecognizer,
  type OfflineRecognizerResult,
  type OnlineRecognizer,
} from './native.ts'
import { type OnlineDecoded, OnlineUtterance, SherpaOnlineStream } from './online.ts'
import { type SherpaOnnxOptions, STREAMING_FAMILIES } from './options.ts'
import { decodingMethodOf, recognizerConfig } from './recognizer-config.ts'
import { hasInvalidScores, parseResult, tokensOf } from './result.ts'
import { writeDerivedBpeVocab } from './tokens.ts'
import { type ValidatedModel, validateModel } from './validate-model.ts'

/** Shorter pieces hold no word; some encoders fail on a handful of feature frames. */
const MIN_SAMPLES = 1600

interface Loaded {
  spec: ModelSpec
  model: ValidatedModel
  /** The recognizer of an offline model, or null for a streaming one. */
  recognizer: OfflineRecognizer | null
  /** The recognizer of a streaming model (STREAMING_FAMILIES), or null. */
  online: OnlineRecognizer | null
  bpeVocab: string | null
  language: string
  /** The Whisper task the recognizer is configured with. */
  task: 'transcribe' | 'translate'
}

/** Mean token probability (exp of each token's log-probability), or null when the model reports none. */
export function confidenceOf(result: OfflineRecognizerResult): number | null {
  const logProbs = result.ys_log_probs ?? []
  if (logProbs.length === 0) return null
  const mean = logProbs.reduce((sum, lp) => sum + Math.exp(lp), 0) / logProbs.length
  return Number.isFinite(mean) ? Math.min(1, Math.max(0, mean)) : null
}

/** A model whose scores are NaN: its weights are corrupt (a bad download, a damaged disk). */
function producesNaN(spec: ModelSpec) {
  const problem = 'the model produces invalid numbers (NaN), so its weights are probably corrupt'
  if (spec.catalogId === null) {
    return errors.MODEL_INVALID(`speech.engines.sherpa-onnx.modelDir: ${problem}.`, {
      extra: { fix: spec.fix },
    })
  }
  const id = spec.catalogId
  const fix = `dictum models pull ${id} --force`
  return errors.MODEL_INVALID(
    `${id}: ${problem}: run \`dictum models verify ${id}\`, or pull it again (\`${fix}\`).`,
    { extra: { fix } },
  )
}

export class SherpaOnnxEngine implements EngineInstance {
  readonly #context: EngineContext<SherpaOnnxOptions>
  #loading: Promise<Loaded> | null = null
  #loaded: Loaded | null = null
  #tempDir: string | null = null
  #queue: Promise<unknown> = Promise.resolve()
  #closed = false

  constructor(context: EngineContext<SherpaOnnxOptions>) {
    this.#context = context
  }

  load(): Promise<void> {
    if (this.#closed) return Promise.reject(errors.ENGINE_UNAVAILABLE('the sherpa-onnx engine is closed'))
    this.#loading ??= this.#load().catch((error: unknown) => {
      this.#loading = null
      throw error
    })
    return this.#loading.then(() => undefined)
  }

  async #load(): Promise<Loaded> {
    const { options, modelsDir, logger } = this.#context
    const started = performance.now()
    const spec = await resolveModel(options, modelsDir).catch((error: Error) => {
      throw errors.ENGINE_LOAD_FAILED(error.message)
    })
    const model = await validateModel(spec)
    const languageProblem = configuredLanguageProblem(spec.family, model.declaredLanguages, options.language)
    if (languageProblem) throw errors.ENGINE_LOAD_FAILED(`speech.engines.sherpa-onnx: ${languageProblem}`)
    const bpeVocab = supportsCustomWords(options, spec.family) ? await this.#bpeVocabFor(model) : null
    const language = languageToUse(spec.family, model.declaredLanguages, options.language, undefined)
    const config = recognizerConfig({ spec, options, bpeVocab, language })
    const native = loadSherpaOnnx()
    const rejected = (error: unknown) => {
      const detail = String((error as Error)?.message ?? error).replaceAll(spec.dir, '<model folder>')
      return errors.MODEL_INVALID(
        `${spec.catalogId ?? 'modelDir'}: the runtime rejected the model: ${detail}`,
        {
          cause: error,
          extra: { fix: spec.fix },
        },
      )
    }
    let recognizer: OfflineRecognizer | null = null
    let online: OnlineRecognizer | null = null
    if (STREAMING_FAMILIES.includes(spec.family)) {
      try {
        online = new native.OnlineRecognizer(config)
      } catch (error) {
        throw rejected(error)
      }
    } else {
      recognizer = await native.OfflineRecognizer.createAsync(config).catch((error: unknown) => {
        throw rejected(error)
      })
    }
    const loaded = { spec, model, recognizer, online, bpeVocab, language, task: options.task }
    if (this.#closed) throw errors.ENGINE_UNAVAILABLE('the sherpa-onnx engine was closed while loading')
    this.#loaded = loaded
    const ms = Math.round(performance.now() - started)
    logger.info({ model: spec.catalogId ?? spec.dir, family: spec.family, ms }, 'sherpa-onnx model loaded')
    return loaded
  }

  /** The folder's own bpe.vocab when usable, else one derived from tokens.txt into a private temp dir. */
  async #bpeVocabFor(model: ValidatedModel): Promise<string> {
    if (model.bpeVocab !== null) return model.bpeVocab
    this.#tempDir ??= await mkdtemp(path.join(os.tmpdir(), 'dictum-sherpa-onnx-'))
    const file = path.join(this.#tempDir, 'bpe.vocab')
    await writeDerivedBpeVocab(file, model.tokens)
    return file
  }

  transcribe(request: EngineTranscribeRequest, signal?: AbortSignal): Promise<EngineTranscribeResult> {
    const run = this.#queue.then(() => this.#transcribe(request, signal))
    this.#queue = run.catch(() => undefined)
    return run
  }

  async #transcribe(request: EngineTranscribeRequest, signal?: AbortSignal): Promise<EngineTranscribeResult> {
    signal?.throwIfAborted()
    await this.load()
    const loaded = this.#loaded
    if (!loaded || this.#closed) throw errors.ENGINE_UNAVAILABLE('the sherpa-onnx engine is closed')
    if (loaded.online) return this.#transcribeOnline(loaded, loaded.online, request)
    const { spec } = loaded
    const recognizer = loaded.recognizer as OfflineRecognizer
    const useWords = loaded.bpeVocab !== null && request.customWords.length > 0
    const plan = useWords
      ? planHotwords(request.customWords, loaded.model.tokens, this.#context.options.hotwordsScore)
      : null
    const debug = this.#debug(spec, plan)
    if (request.samples.length < MIN_SAMPLES) return { text: '', confidence: null, debug }
    this.#applyLanguage(loaded, request.language, request.task)
    // Whisper's task (transcribe, or translate into English) is part of what made the text.
    if (spec.family === 'whisper') debug.task = loaded.task
    try {
      const stream =
        plan && plan.lines.length > 0
          ? recognizer.createStream(plan.lines.join('/'))
          : recognizer.createStream()
      stream.acceptWaveform({ sampleRate: 16000, samples: request.samples })
      const result = parseResult(await decodeToJson(recognizer, stream))
      if (hasInvalidScores(result)) throw producesNaN(spec)
      const raw = result.text.trim()
      const text = useWords ? applyCanonicalForms(raw, request.customWords) : raw
      const language = resultLanguage(result.lang, spec.languages)
      const tokens = text ? tokensOf(result) : undefined
      return {
        text,
        confidence: text ? confidenceOf(result) : null,
        ...(language ? { language } : {}),
        ...(tokens ? { tokens } : {}),
        debug,
      }
    } catch (error) {
      if (isDictumError(error)) throw error
      throw errors.ENGINE_FAILED(`sherpa-onnx could not decode: ${(error as Error)?.message ?? error}`, {
        cause: error,
      })
    }
  }

  /**
   * A whole piece through a streaming model: fed at once, then flushed as a stream's end is (online.ts), so
   * a live utterance's final result and the file transcription of the same audio are the same.
   */
  #transcribeOnline(
    loaded: Loaded,
    online: OnlineRecognizer,
    request: EngineTranscribeRequest,
  ): EngineTranscribeResult {
    // No MIN_SAMPLES here: the tail padding gives the encoder its frames, and a live utterance that short
    // must get the same (empty or not) text.
    const utterance = new OnlineUtterance(online)
    utterance.accept(request.samples)
    return this.#onlineResult(loaded, utterance.finish())
  }

  /** Opens a live utterance on a streaming model (its own sherpa-onnx stream). */
  async openStream(): Promise<EngineStream> {
    await this.load()
    const loaded = this.#loaded
    if (!loaded || this.#closed) throw errors.ENGINE_UNAVAILABLE('the sherpa-onnx engine is closed')
    if (!loaded.online) {
      throw errors.ENGINE_STREAMING_UNSUPPORTED(
        `${loaded.spec.catalogId ?? 'the model in modelDir'} is not a streaming model`,
      )
    }
    return new SherpaOnlineStream(new OnlineUtterance(loaded.online), (decoded) =>
      this.#onlineResult(loaded, decoded),
    )
  }

  #onlineResult(loaded: Loaded, decoded: OnlineDecoded): EngineTranscribeResult {
    if (decoded.invalid) throw producesNaN(loaded.spec)
    const text = decoded.result.text.trim()
    const tokens = text ? tokensOf(decoded.result) : undefined
    return {
      text,
      confidence: text ? confidenceOf(decoded.result) : null,
      ...(tokens ? { tokens } : {}),
      debug: this.#debug(loaded.spec, null),
    }
  }

  /** What the result's `debug` says: the model, the decoding method and the hotwords actually passed. */
  #debug(spec: ModelSpec, plan: HotwordPlan | null): Record<string, unknown> {
    return {
      model: spec.catalogId ?? 'custom',
      decodingMethod: decodingMethodOf(this.#context.options, spec.family),
      hotwords: plan?.lines ?? [],
      ...(plan && plan.skipped.length > 0 ? { skippedHotwords: plan.skipped } : {}),
    }
  }

  /**
   * Whisper and SenseVoice take the language in the recognizer config, so a new hint reconfigures it; so
   * does a request's task (Whisper translates with `task: translate`), which only Whisper models take.
   */
  #applyLanguage(
    loaded: Loaded,
    requested: string | undefined,
    requestedTask?: 'transcribe' | 'translate',
  ): void {
    const configured = this.#context.options
    const task = loaded.spec.family === 'whisper' ? (requestedTask ?? configured.task) : configured.task
    const language = languageToUse(
      loaded.spec.family,
      loaded.model.declaredLanguages,
      configured.language,
      requested,
    )
    if (language === loaded.language && task === loaded.task) return
    const options = { ...configured, task }
    loaded.recognizer?.setConfig(
      recognizerConfig({ spec: loaded.spec, options, bpeVocab: loaded.bpeVocab, language }),
    )
    loaded.language = language
    loaded.task = task
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.#loading?.catch(() => undefined)
    await this.#queue
    // The native recognizer is freed by its finalizer once unreferenced; the bindings offer no explicit free.
    this.#loaded = null
    this.#loading = null
    if (this.#tempDir) await rm(this.#tempDir, { recursive: true, force: true })
    this.#tempDir = null
  }
}
