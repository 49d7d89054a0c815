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
}

const sphinxbaseFunctions = {
  cmd_ln_parse_r: 'void *cmd_ln_parse_r(void *inout, void *defn, int argc, const char **argv, int strict)',
  cmd_ln_free_r: 'int cmd_ln_free_r(void *config)',
  logmath_exp: 'double logmath_exp(void *logmath, int value)',
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
