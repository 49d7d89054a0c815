/**
 * koffi bindings to the pocketsphinx 0.8 ("5prealpha") C API, as Debian ships it. Imported lazily by the
 * engine instance's load(), never at plugin import time.
 */
import type { LibraryPaths } from './libraries.ts'

/** Opaque C pointers (ps_decoder_t *, cmd_ln_t *, ps_seg_t *, logmath_t *). */
export type Pointer = object

export interface PocketsphinxNative {
  ps_args(): Pointer
  cmd_ln_parse_r(
    inout: Pointer | null,
    defn: Pointer,
    argc: number,
    argv: string[],
    strict: number,
  ): Pointer | null
  cmd_ln_free_r(config: Pointer): number
  ps_init(config: Pointer): Pointer | null
  ps_free(decoder: Pointer): number
  ps_start_utt(decoder: Pointer): number
  ps_process_raw(
    decoder: Pointer,
    data: Int16Array,
    samples: number,
    noSearch: number,
    fullUtt: number,
  ): number
  ps_end_utt(decoder: Pointer): number
  ps_get_hyp(decoder: Pointer, score: [number]): string | null
  ps_get_logmath(decoder: Pointer): Pointer
  ps_seg_iter(decoder: Pointer): Pointer | null
  ps_seg_next(segment: Pointer): Pointer | null
  ps_seg_word(segment: Pointer): string
  ps_seg_frames(segment: Pointer, start: [number], end: [number]): void
  ps_seg_prob(segment: Pointer, ascr: [number], lscr: [number], lback: [number]): number
  ps_seg_free(segment: Pointer): void
  logmath_exp(logmath: Pointer, value: number): number
  // Custom words: the dictionary reloaded with words added, and a search whose language model interpolates the main
  // model with a small one of the custom words (custom-words.ts).
  ps_load_dict(decoder: Pointer, dictfile: string, fdictfile: string | null, format: string | null): number
  ps_get_lm(decoder: Pointer, name: string): Pointer | null
  ps_set_lm(decoder: Pointer, name: string, lm: Pointer): number
  ps_set_search(decoder: Pointer, name: string): number
  ps_get_config(decoder: Pointer): Pointer
  ngram_model_read(config: Pointer, file: string, type: number, logmath: Pointer): Pointer | null
  ngram_model_set_init(
    config: Pointer,
    models: Pointer[],
    names: string[],
    weights: Float32Array,
    count: number,
  ): Pointer | null
  ngram_model_retain(model: Pointer): Pointer
  ngram_model_set_lookup(set: Pointer, name: string): Pointer | null
  ngram_wid(model: Pointer, word: string): number
  ngram_unknown_wid(model: Pointer): number
  ngram_model_free(model: Pointer): number
  // Reading a language model on its own (search-dictionary.ts: which words it has).
  logmath_init(base: number, shift: number, useTable: number): Pointer | null
  logmath_free(logmath: Pointer): number
  /** Where the library logs (a decoder sets it from its `-logfn`; set before reading a model on its own). */
  err_set_logfile(path: string): number
}

/** sphinxbase's `ngram_file_type_t`: let the reader tell ARPA text from the binary format. */
export const NGRAM_AUTO = 0
/** The search pocketsphinx creates for `-lm` (PS_DEFAULT_SEARCH). */
export const DEFAULT_SEARCH = '_default'

const sphinxbaseFunctions = {
  cmd_ln_parse_r: 'void *cmd_ln_parse_r(void *inout, void *defn, int argc, const char **argv, int strict)',
  cmd_ln_free_r: 'int cmd_ln_free_r(void *config)',
  logmath_exp: 'double logmath_exp(void *logmath, int value)',
  ngram_model_read: 'void *ngram_model_read(void *config, const char *file, int type, void *logmath)',
  ngram_model_set_init:
    'void *ngram_model_set_init(void *config, void **models, const char **names, const float *weights, int count)',
  ngram_model_retain: 'void *ngram_model_retain(void *model)',
  ngram_model_set_lookup: 'void *ngram_model_set_lookup(void *set, const char *name)',
  ngram_wid: 'int32_t ngram_wid(void *model, const char *word)',
  ngram_unknown_wid: 'int32_t ngram_unknown_wid(void *model)',
  ngram_model_free: 'int ngram_model_free(void *model)',
  logmath_init: 'void *logmath_init(double base, int shift, int use_table)',
  logmath_free: 'int logmath_free(void *logmath)',
  err_set_logfile: 'int err_set_logfile(const char *path)',
}

const pocketsphinxFunctions = {
  ps_args: 'void *ps_args()',
  ps_init: 'void *ps_init(void *config)',
  ps_free: 'int ps_free(void *decoder)',
  ps_start_utt: 'int ps_start_utt(void *decoder)',
  ps_process_raw:
    'int ps_process_raw(void *decoder, const int16_t *data, size_t samples, int noSearch, int fullUtt)',
  ps_end_utt: 'int ps_end_utt(void *decoder)',
  ps_get_hyp: 'const char *ps_get_hyp(void *decoder, _Out_ int32_t *score)',
  ps_get_logmath: 'void *ps_get_logmath(void *decoder)',
  ps_seg_iter: 'void *ps_seg_iter(void *decoder)',
  ps_seg_next: 'void *ps_seg_next(void *segment)',
  ps_seg_word: 'const char *ps_seg_word(void *segment)',
  ps_seg_frames: 'void ps_seg_frames(void *segment, _Out_ int *start, _Out_ int *end)',
  ps_seg_prob:
    'int32_t ps_seg_prob(void *segment, _Out_ int32_t *ascr, _Out_ int32_t *lscr, _Out_ int32_t *lback)',
  ps_seg_free: 'void ps_seg_free(void *segment)',
  ps_load_dict:
    'int ps_load_dict(void *decoder, const char *dictfile, const char *fdictfile, const char *format)',
  ps_get_lm: 'void *ps_get_lm(void *decoder, const char *name)',
  ps_set_lm: 'int ps_set_lm(void *decoder, const char *name, void *lm)',
  ps_set_search: 'int ps_set_search(void *decoder, const char *name)',
  ps_get_config: 'void *ps_get_config(void *decoder)',
}

/** dlopens both libraries (sphinxbase first: pocketsphinx links against it) and binds the functions. */
export async function loadNative(libraries: LibraryPaths): Promise<PocketsphinxNative> {
  const { default: koffi } = await import('koffi')
  const sphinxbase = koffi.load(libraries.sphinxbase)
  const pocketsphinx = koffi.load(libraries.pocketsphinx)
  const bind = (lib: ReturnType<typeof koffi.load>, table: Record<string, string>) =>
    Object.fromEntries(Object.entries(table).map(([name, prototype]) => [name, lib.func(prototype)]))
  return {
    ...bind(sphinxbase, sphinxbaseFunctions),
    ...bind(pocketsphinx, pocketsphinxFunctions),
  } as unknown as PocketsphinxNative
}
