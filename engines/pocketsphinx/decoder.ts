/** One pocketsphinx decoder (one loaded model), used for one utterance at a time. */
import type { PocketsphinxNative, Pointer } from './native.ts'
import type { ModelPaths } from './options.ts'

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

export class PocketsphinxDecoder {
  readonly #native: PocketsphinxNative
  #config: Pointer | null
  #decoder: Pointer | null
  readonly #logmath: Pointer

  private constructor(native: PocketsphinxNative, config: Pointer, decoder: Pointer) {
    this.#native = native
    this.#config = config
    this.#decoder = decoder
    this.#logmath = native.ps_get_logmath(decoder)
  }

  /**
   * Parses the arguments like the command line does and initialises the decoder (loads the model); `search`
   * is the search and front-end settings (options.ts `searchArguments`).
   */
  static open(native: PocketsphinxNative, paths: ModelPaths, search: string[]): PocketsphinxDecoder {
    // The library's own log goes nowhere: it is verbose, and a host's stderr is logged by the runner.
    const argv = ['-hmm', paths.hmm, '-lm', paths.lm, '-dict', paths.dict, '-logfn', '/dev/null', ...search]
    const config = native.cmd_ln_parse_r(null, native.ps_args(), argv.length, argv, 1)
    if (!config) throw new Error('pocketsphinx rejected its arguments')
    const decoder = native.ps_init(config)
    if (!decoder) {
      native.cmd_ln_free_r(config)
      throw new Error(
        `pocketsphinx could not load the model (hmm ${paths.hmm}, lm ${paths.lm}, dict ${paths.dict})`,
      )
    }
    return new PocketsphinxDecoder(native, config, decoder)
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
    if (this.#decoder) this.#native.ps_free(this.#decoder)
    if (this.#config) this.#native.cmd_ln_free_r(this.#config)
    this.#decoder = null
    this.#config = null
  }
}
