/** One pocketsphinx decoder (one loaded model), used for one utterance at a time. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { arpaUnigrams, type BiasPlan, CUSTOM_MODEL_WEIGHT } from './custom-words.ts'
import { DEFAULT_SEARCH, NGRAM_AUTO, type PocketsphinxNative, type Pointer } from './native.ts'
import type { ModelPaths } from './options.ts'
import { baseWord } from './search-dictionary.ts'

/** The search whose language model holds the custom words (replaced when they change). */
const CUSTOM_SEARCH = 'custom-words'

/** A segment of the best path: a word or a filler (`<s>`, `<sil>`, `[NOISE]`…), with frames at 100 fps. */
export interface DecodedSegment {
  word: string
  startFrame: number
  endFrame: number
  /** Posterior probability of the segment (0..1), from the decoder's lattice. */
  posterior: number
}

export interface Decoded {
  hypothesis: string
  segments: DecodedSegment[]
}

/**
 * The search dictionary (search-dictionary.ts) with a plan's entries added, written once per plan (the library reads dictionaries
 * from files): a decoder opened with it reads the dictionary once, instead of the model's and then this.
 */
export interface PlanDictionary {
  /** JSON of the entries added (the decoder's key for the dictionary it has loaded). */
  key: string
  file: string
  /** Removes the file (decoders that loaded it keep their copy). */
  remove: () => void
}

/** The key a decoder searching with this plan has ('' : none, the model's own search). */
export function biasKeyOf(plan: BiasPlan | null): string {
  return plan && plan.unigrams.length > 0 ? plan.key : ''
}

/** Writes the search dictionary (`paths.dict`) with these entries added to a temporary file. */
export function writePlanDictionary(paths: ModelPaths, additions: BiasPlan['additions']): PlanDictionary {
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-pocketsphinx-'))
  const file = path.join(dir, 'custom-words.dict')
  try {
    const lines = additions.map((entry) => `${entry.word} ${entry.phones}`).join('\n')
    writeFileSync(file, `${readFileSync(paths.dict, 'utf8').trimEnd()}\n${lines}\n`)
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return {
    key: JSON.stringify(additions),
    file,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

export class PocketsphinxDecoder {
  readonly #native: PocketsphinxNative
  #config: Pointer | null
  #decoder: Pointer | null
  readonly #logmath: Pointer
  readonly #paths: ModelPaths
  /** Key of the custom-words plan in use ('' : none, the model's own search). */
  #biasKey = ''
  /** The entries added to the dictionary now loaded (none: the model's own). */
  #added: BiasPlan['additions'] = []
  /** The plan whose custom-words search is built and still holds (no dictionary loaded since): '' none. */
  #customSearchKey = ''
  /** The model's own language model, shared by the custom-words searches. */
  #mainLm: Pointer | null = null
  /** A live utterance is going on ({@link startUtterance}). */
  #inUtterance = false
  /** Dictionaries loaded after the decoder was opened (ps_load_dict), and custom-words searches built. */
  #setups = { dictionaryLoads: 0, searchBuilds: 0 }

  private constructor(
    native: PocketsphinxNative,
    config: Pointer,
    decoder: Pointer,
    paths: ModelPaths,
    dictionaryKey: string,
  ) {
    this.#native = native
    this.#config = config
    this.#decoder = decoder
    this.#logmath = native.ps_get_logmath(decoder)
    this.#paths = paths
    this.#added = JSON.parse(dictionaryKey) as BiasPlan['additions']
  }

  /**
   * Parses the arguments like the command line does and initialises the decoder (loads the model); `search`
   * is the search and front-end settings (options.ts `searchArguments`). With `dictionary` (a plan's), the
   * decoder loads that one instead of the model's, so {@link useBias} with that plan has no dictionary to
   * load again (reading the ~80,000-line search dictionary is most of a decoder's custom-words setup).
   */
  static open(
    native: PocketsphinxNative,
    paths: ModelPaths,
    search: string[],
    dictionary: PlanDictionary | null = null,
  ): PocketsphinxDecoder {
    const dict = dictionary?.file ?? paths.dict
    // The library's own log goes nowhere: it is verbose, and a host's stderr is logged by the runner.
    const argv = ['-hmm', paths.hmm, '-lm', paths.lm, '-dict', dict, '-logfn', '/dev/null', ...search]
    const config = native.cmd_ln_parse_r(null, native.ps_args(), argv.length, argv, 1)
    if (!config) throw new Error('pocketsphinx rejected its arguments')
    const decoder = native.ps_init(config)
    if (!decoder) {
      native.cmd_ln_free_r(config)
      throw new Error(
        `pocketsphinx could not load the model (hmm ${paths.hmm}, lm ${paths.lm}, dict ${paths.dict})`,
      )
    }
    return new PocketsphinxDecoder(native, config, decoder, paths, dictionary?.key ?? '[]')
  }

  /** The key of the custom-words plan the decoder searches with ('' : none). */
  get biasKey(): string {
    return this.#biasKey
  }

  /** Work done to switch custom words since the decoder was opened (for diagnostics and tests). */
  get setups(): { dictionaryLoads: number; searchBuilds: number } {
    return { ...this.#setups }
  }

  /**
   * Decodes with these custom words from now on (null or none: the model's own search, as loaded). A new
   * plan loads the dictionary with its entries added and builds a search whose language model interpolates
   * the main model with the custom words' (custom-words.ts); the same plan again costs nothing. The main
   * model itself is never changed (words are added to the dictionary file the decoder loads, not through
   * `ps_add_word`, which would also add them to every language model), so without custom words the decoder
   * is exactly as loaded.
   */
  useBias(plan: BiasPlan | null, dictionary: PlanDictionary | null = null): void {
    const native = this.#native
    const decoder = this.#live()
    const key = biasKeyOf(plan)
    if (key === this.#biasKey) return
    this.#loadDictionary(key === '' ? null : (plan as BiasPlan), dictionary)
    if (key === '' || key === this.#customSearchKey) {
      const search = key === '' ? DEFAULT_SEARCH : CUSTOM_SEARCH
      if (native.ps_set_search(decoder, search) < 0) throw new Error('ps_set_search failed')
      this.#biasKey = key
      return
    }
    const main = this.#mainModel()
    const custom = this.#customModel(plan as BiasPlan)
    // The set takes over one reference to each model it combines; the main model is shared with the
    // model's own search, so it gets a reference of its own.
    native.ngram_model_retain(main)
    const set = native.ngram_model_set_init(
      native.ps_get_config(decoder),
      [main, custom],
      ['main', 'custom'],
      new Float32Array([1 - CUSTOM_MODEL_WEIGHT, CUSTOM_MODEL_WEIGHT]),
      2,
    )
    if (!set) throw new Error('pocketsphinx could not combine the custom words with the language model')
    // Replacing the search of the same name frees the previous plan's.
    this.#setups.searchBuilds++
    if (native.ps_set_lm(decoder, CUSTOM_SEARCH, set) < 0 || native.ps_set_search(decoder, CUSTOM_SEARCH) < 0)
      throw new Error('pocketsphinx could not build the custom-words search')
    this.#biasKey = key
    this.#customSearchKey = key
  }

  /**
   * Loads the search dictionary with the plan's entries added (no plan: the search dictionary itself), unless the
   * dictionary loaded serves the plan as well (#serves); from `dictionary` when it is this plan's (already
   * written), else from a file written for the call.
   */
  #loadDictionary(plan: BiasPlan | null, dictionary: PlanDictionary | null): void {
    const additions = plan?.additions ?? []
    const key = JSON.stringify(additions)
    if (key === JSON.stringify(this.#added) || this.#serves(plan)) return
    const native = this.#native
    const decoder = this.#live()
    this.#setups.dictionaryLoads++
    // Loading a dictionary sets every search up again: the custom-words search is built anew when next used.
    this.#customSearchKey = ''
    if (additions.length === 0) {
      if (native.ps_load_dict(decoder, this.#paths.dict, null, null) < 0)
        throw new Error(`pocketsphinx could not reload its dictionary ${this.#paths.dict}`)
    } else {
      const written = dictionary?.key === key ? null : writePlanDictionary(this.#paths, additions)
      try {
        if (native.ps_load_dict(decoder, (written ?? (dictionary as PlanDictionary)).file, null, null) < 0)
          throw new Error('pocketsphinx refused a custom word pronunciation (an unknown phone?)')
      } finally {
        written?.remove()
      }
    }
    this.#added = additions
  }

  /**
   * Whether the dictionary loaded gives the plan's search (no plan: the model's own) exactly what the plan's
   * own dictionary would: each word the plan searches has the plan's pronunciations there and no other, and
   * every other word added there is unknown to the main language model. pocketsphinx searches only the
   * words of a search's language models, so such a word is never part of the search (measured: the 10
   * clips give the same words, times and confidence with and without 3 such words added). Loading the
   * ~80,000-line search dictionary again costs a few tenths of a second of CPU per decoder; a service whose requests go with and
   * without custom words (a realtime session's keywords, a replay) no longer pays it at each change.
   */
  #serves(plan: BiasPlan | null): boolean {
    const searched = new Set(plan?.unigrams.map((u) => u.word) ?? [])
    const entries = (list: BiasPlan['additions'], word: string) =>
      list
        .filter((entry) => baseWord(entry.word) === word)
        .map((entry) => `${entry.word} ${entry.phones}`)
        .sort()
        .join('|')
    for (const word of searched)
      if (entries(this.#added, word) !== entries(plan?.additions ?? [], word)) return false
    const main = this.#mainModel()
    const unknown = this.#native.ngram_unknown_wid(main)
    return this.#added.every((entry) => {
      const word = baseWord(entry.word)
      return searched.has(word) || this.#native.ngram_wid(main, word) === unknown
    })
  }

  /** Whether the model's own language model has this word (so the search dictionary has it too). */
  knows(word: string): boolean {
    const main = this.#mainModel()
    return this.#native.ngram_wid(main, word) !== this.#native.ngram_unknown_wid(main)
  }

  /** The model's own language model (inside the default search's set), shared, never modified. */
  #mainModel(): Pointer {
    const native = this.#native
    if (this.#mainLm) return this.#mainLm
    const set = native.ps_get_lm(this.#live(), DEFAULT_SEARCH)
    const main = set ? native.ngram_model_set_lookup(set, 'default') : null
    if (!main) throw new Error('pocketsphinx has no language model to add custom words to')
    this.#mainLm = main
    return main
  }

  /** The custom words' unigram model, read from a temporary ARPA file (the library reads models from files). */
  #customModel(plan: BiasPlan): Pointer {
    const native = this.#native
    return withTempFile('custom-words.arpa', (file) => {
      writeFileSync(file, arpaUnigrams(plan.unigrams))
      const model = native.ngram_model_read(
        native.ps_get_config(this.#live()),
        file,
        NGRAM_AUTO,
        this.#logmath,
      )
      if (!model) throw new Error('pocketsphinx could not read the custom words model')
      return model
    })
  }

  #live(): Pointer {
    if (!this.#decoder) throw new Error('the pocketsphinx decoder was freed')
    return this.#decoder
  }

  /** Decodes one whole utterance (16 kHz mono int16). The whole buffer at once lets batch CMN see it all. */
  decode(pcm: Int16Array): Decoded {
    const native = this.#native
    const decoder = this.#decoder
    if (!decoder) throw new Error('the pocketsphinx decoder was freed')
    if (native.ps_start_utt(decoder) < 0) throw new Error('ps_start_utt failed')
    if (native.ps_process_raw(decoder, pcm, pcm.length, 0, 1) < 0) {
      native.ps_end_utt(decoder)
      throw new Error('ps_process_raw failed')
    }
    if (native.ps_end_utt(decoder) < 0) throw new Error('ps_end_utt failed')
    const hypothesis = native.ps_get_hyp(decoder, [0]) ?? ''
    return { hypothesis, segments: this.#segments(decoder) }
  }

  /**
   * Starts a live utterance, decoded chunk by chunk ({@link processChunk}). The library then normalises the
   * cepstra with its running (live) mean instead of the whole utterance's, and keeps doing so on this decoder
   * for good: a decoder that has streamed no longer gives `decode`'s batch results, so streams have their own.
   */
  startUtterance(): void {
    const native = this.#native
    if (native.ps_start_utt(this.#live()) < 0) throw new Error('ps_start_utt failed')
    this.#inUtterance = true
  }

  /**
   * Decodes the next chunk of the live utterance; returns the hypothesis so far ('' : nothing yet), or null
   * when `hypothesis` is false (the search goes on; asking for a hypothesis costs a backtrace).
   */
  processChunk(pcm: Int16Array, hypothesis: boolean): string | null
  processChunk(pcm: Int16Array): string
  processChunk(pcm: Int16Array, hypothesis = true): string | null {
    const native = this.#native
    const decoder = this.#live()
    if (!this.#inUtterance) throw new Error('no utterance started')
    if (pcm.length > 0 && native.ps_process_raw(decoder, pcm, pcm.length, 0, 0) < 0)
      throw new Error('ps_process_raw failed')
    return hypothesis ? (native.ps_get_hyp(decoder, [0]) ?? '') : null
  }

  /** Ends the live utterance, if one is going on (its result is not needed: see PocketsphinxStream). */
  endUtterance(): void {
    if (!this.#inUtterance || !this.#decoder) return
    this.#inUtterance = false
    this.#native.ps_end_utt(this.#decoder)
  }

  #segments(decoder: Pointer): DecodedSegment[] {
    const native = this.#native
    const segments: DecodedSegment[] = []
    // ps_seg_next frees the iterator when it returns NULL, so a full walk needs no ps_seg_free.
    for (let seg = native.ps_seg_iter(decoder); seg; seg = native.ps_seg_next(seg)) {
      const start: [number] = [0]
      const end: [number] = [0]
      native.ps_seg_frames(seg, start, end)
      const logPosterior = native.ps_seg_prob(seg, [0], [0], [0])
      segments.push({
        word: native.ps_seg_word(seg),
        startFrame: start[0],
        endFrame: end[0],
        posterior: native.logmath_exp(this.#logmath, logPosterior),
      })
    }
    return segments
  }

  /** Frees the decoder and its configuration. Safe to call twice. */
  free(): void {
    this.endUtterance()
    if (this.#decoder) this.#native.ps_free(this.#decoder)
    if (this.#config) this.#native.cmd_ln_free_r(this.#config)
    this.#decoder = null
    this.#config = null
  }
}

/** Runs `use` with a path in a fresh temporary folder, removed afterwards (the library reads files). */
function withTempFile<T>(name: string, use: (file: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-pocketsphinx-'))
  try {
    return use(path.join(dir, name))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
