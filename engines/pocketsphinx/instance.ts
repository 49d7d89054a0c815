import {
  type EngineContext,
  type EngineInstance,
  type EngineStream,
  type EngineStreamOptions,
  type EngineTranscribeRequest,
  type EngineTranscribeResult,
  errors,
  floatToInt16,
  letterToSound,
  type PronunciationDictionary,
  readDictionary,
} from '../../sdk/plugin.ts'
import { type BiasPlan, planBias, unknownWords } from './custom-words.ts'
import { biasKeyOf, type PlanDictionary, type PocketsphinxDecoder, writePlanDictionary } from './decoder.ts'
import { checkInstallation, INSTALL_FIX } from './installation.ts'
import type { PocketsphinxNative } from './native.ts'
import { liveSearchArguments, type ModelPaths, type PocketsphinxOptions, searchArguments } from './options.ts'
import type { SearchDictionary } from './search-dictionary.ts'
import { PocketsphinxStream } from './stream.ts'
import { toTranscript } from './transcript.ts'

/**
 * Audio between two hypotheses of a live pass: ~100 ms, three 32 ms VAD windows (a 100 ms chunk gets one
 * each). Measured: docs/live.md "Sessions per core".
 */
export const HYPOTHESIS_EVERY_SAMPLES = 1536

/**
 * A pocketsphinx engine instance: one batch decoder, loaded once and reused for `transcribe` and for the
 * final pass of streams, and live decoders for the streams open at once (stream.ts). Calls into the library
 * are synchronous, so a decoder never serves two calls at once.
 */
export class PocketsphinxEngine implements EngineInstance {
  readonly #context: EngineContext<PocketsphinxOptions>
  #decoder: PocketsphinxDecoder | null = null
  /**
   * Opens a live decoder of the loaded model, with the live pass's lighter search (set by load()), loading
   * `dictionary` (a plan's) instead of the model's.
   */
  #newDecoder: ((dictionary: PlanDictionary | null) => PocketsphinxDecoder) | null = null
  /** Live decoders opened so far (each loads the model: ~0.2 s, ~85 MB). */
  #opened = 0
  /**
   * The dictionaries of the last plans with entries to add, by their entries' key (oldest first), each
   * written once for every decoder that needs it.
   */
  readonly #planDictionaries = new Map<string, PlanDictionary>()
  /** Live decoders with no stream, ready for the next one. */
  readonly #idle: PocketsphinxDecoder[] = []
  /** Live decoders of the streams going on. */
  readonly #busy = new Set<PocketsphinxDecoder>()
  #loading: Promise<void> | null = null
  /** The paths decoders load: the model's, with the search dictionary (search-dictionary.ts). */
  #paths: ModelPaths | null = null
  /** The search dictionary's file, and whether it is the model's own (pruning failed) or a pruned copy. */
  #searchDictionary: (SearchDictionary & { pruned: boolean }) | null = null
  /** The model's own dictionary file (pronunciations of custom words come from it). */
  #modelDict = ''
  /** The model's pronunciation dictionary, read the first time custom words come. */
  #dictionary: Promise<PronunciationDictionary> | null = null
  /**
   * The plans of the last custom-words lists seen, by list (oldest first): a new dictionary version builds a
   * new one, and lists used in turn (a session's keywords beside the dictionary's words) are not rebuilt.
   */
  readonly #plans = new Map<string, Promise<BiasPlan>>()

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
    return this.#decodeWhole(floatToInt16(request.samples), plan)
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
      acquire: () => this.#acquire(plan),
      plan,
      decodeWhole: (pcm, streamPlan) => this.#decodeWhole(pcm, streamPlan),
      release: (done) => this.#release(done),
      hypothesisEvery: HYPOTHESIS_EVERY_SAMPLES,
    })
  }

  /** Live decoders: held by streams going on, and idle (kept for the next stream). */
  get liveDecoders(): { busy: number; idle: number } {
    return { busy: this.#busy.size, idle: this.#idle.length }
  }

  /**
   * What opening and setting up live decoders has cost so far: decoders opened, dictionaries loaded and
   * custom-words searches built on them (for diagnostics and tests: each should happen once per decoder
   * and dictionary version, not per utterance).
   */
  get liveDecoderWork(): { opened: number; dictionaryLoads: number; searchBuilds: number } {
    const work = { opened: this.#opened, dictionaryLoads: 0, searchBuilds: 0 }
    for (const decoder of [...this.#idle, ...this.#busy]) {
      work.dictionaryLoads += decoder.setups.dictionaryLoads
      work.searchBuilds += decoder.setups.searchBuilds
    }
    return work
  }

  /**
   * What switching custom words has cost the file decoder (transcribe() and the streams' finals) so far:
   * dictionaries loaded and custom-words searches built (for diagnostics and tests).
   */
  get fileDecoderWork(): { dictionaryLoads: number; searchBuilds: number } {
    return this.#decoder?.setups ?? { dictionaryLoads: 0, searchBuilds: 0 }
  }

  async close(): Promise<void> {
    await this.#loading?.catch(() => {})
    this.#decoder?.free()
    this.#decoder = null
    for (const decoder of this.#idle.splice(0)) decoder.free()
    // Streams still open lose their decoder now; their finish then fails, their cancel is harmless.
    for (const decoder of this.#busy) decoder.free()
    this.#busy.clear()
    for (const dictionary of this.#planDictionaries.values()) dictionary.remove()
    this.#planDictionaries.clear()
    this.#searchDictionary?.remove()
    this.#searchDictionary = null
  }

  /** A whole piece through the batch decoder: `transcribe`, and the final pass of a stream. */
  #decodeWhole(pcm: Int16Array, plan: BiasPlan | null): EngineTranscribeResult {
    const { language } = this.#context.options
    if (pcm.length === 0) return { text: '', confidence: null, words: [], segments: [], language }
    if (!this.#decoder) throw new Error('the pocketsphinx engine is closed')
    if (this.#decoder.biasKey !== biasKeyOf(plan)) this.#decoder.useBias(plan, this.#dictionaryFor(plan))
    return toTranscript(this.#decoder.decode(pcm), language, plan?.canonical)
  }

  /**
   * A live decoder for a stream, searching with its plan: an idle one (one already set up for the plan
   * first), a new one while fewer than `maxLiveDecoders` exist, else null. Each holds a copy of the model
   * (~85 MB, ~0.2 s to open), so the bound is what keeps a host's memory flat however many utterances pile
   * up on it; kept idle between streams, a decoder is opened and set up for a dictionary version once.
   */
  #acquire(plan: BiasPlan | null): PocketsphinxDecoder | null {
    if (!this.#decoder) return null
    const key = biasKeyOf(plan)
    const ready = this.#idle.findIndex((idle) => idle.biasKey === key)
    let decoder = ready >= 0 ? this.#idle.splice(ready, 1)[0] : this.#idle.pop()
    if (!decoder && this.#busy.size + this.#idle.length < this.#context.options.maxLiveDecoders)
      decoder = this.#openLive(plan)
    if (!decoder) return null
    this.#busy.add(decoder)
    try {
      if (decoder.biasKey !== key) decoder.useBias(plan, this.#dictionaryFor(plan))
    } catch (error) {
      this.#release(decoder)
      throw error
    }
    return decoder
  }

  /** A new live decoder, opened with the plan's dictionary when it adds entries. */
  #openLive(plan: BiasPlan | null): PocketsphinxDecoder {
    const open = this.#newDecoder as (dictionary: PlanDictionary | null) => PocketsphinxDecoder
    const dictionary = this.#dictionaryFor(plan)
    this.#opened++
    if (!dictionary) return open(null)
    try {
      return open(dictionary)
    } catch {
      // A pronunciation the library refuses: opened with the model's own, useBias then says what failed.
      return open(null)
    }
  }

  /** The plan's dictionary file (null: the plan adds no entry), written once per plan. */
  #dictionaryFor(plan: BiasPlan | null): PlanDictionary | null {
    if (!plan || biasKeyOf(plan) === '' || plan.additions.length === 0) return null
    const key = JSON.stringify(plan.additions)
    const kept = this.#planDictionaries.get(key)
    if (kept) return kept
    const dictionary = writePlanDictionary(this.#paths as ModelPaths, plan.additions)
    remember(this.#planDictionaries, key, dictionary, (old) => old.remove())
    return dictionary
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
    const kept = this.#plans.get(key)
    if (kept) return kept
    const plan = (async () => {
      this.#dictionary ??= readDictionary(this.#modelDict)
      const dictionary = await this.#dictionary
      const unknown = unknownWords(words, dictionary)
      const spelled = await letterToSound(unknown).catch((err: Error) => {
        this.#context.logger.warn(
          { error: err.message, words: unknown.length },
          'pocketsphinx: letter to sound (espeak-ng) failed; custom words it would spell are left out unless their aliases are known words',
        )
        return new Map<string, string[]>()
      })
      const search = this.#searchDictionary
      const decoder = this.#decoder
      // Which words the decoders' dictionary has: with a pruned one, those of the language model.
      const inSearch = search?.pruned && decoder ? (word: string) => decoder.knows(word) : undefined
      const built = planBias(words, dictionary, spelled, inSearch)
      if (built.skipped.length > 0)
        this.#context.logger.warn({ skipped: built.skipped }, 'pocketsphinx: some custom words are left out')
      return built
    })()
    remember(this.#plans, key, plan)
    plan.catch(() => {
      if (this.#plans.get(key) === plan) this.#plans.delete(key)
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
    const search = await this.#openSearchDictionary(native, installation.paths)
    const paths = { ...installation.paths, dict: search.file }
    const live = liveSearchArguments(options)
    this.#newDecoder = (dictionary) => PocketsphinxDecoder.open(native, paths, live, dictionary)
    try {
      this.#decoder = PocketsphinxDecoder.open(native, paths, searchArguments(options))
    } catch (error) {
      search.remove()
      throw error
    }
    this.#searchDictionary = search
    this.#paths = paths
    this.#modelDict = installation.paths.dict
    logger.info(
      { ...installation.paths, searchDict: search.file, ms: Math.round(performance.now() - started) },
      'pocketsphinx model loaded',
    )
  }

  /** The search dictionary (search-dictionary.ts); the model's own when it cannot be made. */
  async #openSearchDictionary(
    native: PocketsphinxNative,
    paths: ModelPaths,
  ): Promise<SearchDictionary & { pruned: boolean }> {
    const { searchDictionary } = await import('./search-dictionary.ts')
    try {
      return { ...searchDictionary(native, paths), pruned: true }
    } catch (error) {
      this.#context.logger.warn(
        { error: (error as Error).message, dict: paths.dict },
        "pocketsphinx: decoders load the model's whole dictionary (its words the language model lacks could not be left out)",
      )
      return { file: paths.dict, remove: () => {}, pruned: false }
    }
  }
}

/** Plans (and their dictionaries) kept per engine: dictionary versions and session keyword lists in use. */
const KEPT_PLANS = 4

/** Keeps `value` under `key` in `map`, dropping the oldest entries past KEPT_PLANS (`drop` frees them). */
function remember<T>(map: Map<string, T>, key: string, value: T, drop: (old: T) => void = () => {}): void {
  map.set(key, value)
  for (const [oldKey, old] of map) {
    if (map.size <= KEPT_PLANS) break
    map.delete(oldKey)
    drop(old)
  }
}
