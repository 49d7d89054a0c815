/**
 * koffi bindings to the libvosk C API (vosk_api.h). Imported lazily by the engine instance's load() or by
 * tests in a child process, never at plugin import time.
 */
import { voskPackage } from './library.ts'

/** Opaque C pointers (VoskModel *, VoskRecognizer *). */
export type Pointer = object

export interface VoskNative {
  vosk_set_log_level(level: number): void
  vosk_model_new(path: string): Pointer | null
  vosk_model_free(model: Pointer): void
  vosk_recognizer_new(model: Pointer, sampleRate: number): Pointer | null
  vosk_recognizer_set_words(recognizer: Pointer, words: number): void
  vosk_recognizer_accept_waveform(recognizer: Pointer, data: Uint8Array, length: number): number
  vosk_recognizer_result(recognizer: Pointer): string
  vosk_recognizer_partial_result(recognizer: Pointer): string
  vosk_recognizer_final_result(recognizer: Pointer): string
  vosk_recognizer_free(recognizer: Pointer): void
}

export interface VoskLibrary {
  native: VoskNative
  /** The library's version and where that figure comes from. */
  version: { version: string; source: string }
}

const FUNCTIONS = {
  vosk_set_log_level: 'void vosk_set_log_level(int log_level)',
  vosk_model_new: 'void *vosk_model_new(const char *model_path)',
  vosk_model_free: 'void vosk_model_free(void *model)',
  vosk_recognizer_new: 'void *vosk_recognizer_new(void *model, float sample_rate)',
  vosk_recognizer_set_words: 'void vosk_recognizer_set_words(void *recognizer, int words)',
  vosk_recognizer_accept_waveform:
    'int vosk_recognizer_accept_waveform(void *recognizer, const uint8_t *data, int length)',
  vosk_recognizer_result: 'const char *vosk_recognizer_result(void *recognizer)',
  vosk_recognizer_partial_result: 'const char *vosk_recognizer_partial_result(void *recognizer)',
  vosk_recognizer_final_result: 'const char *vosk_recognizer_final_result(void *recognizer)',
  vosk_recognizer_free: 'void vosk_recognizer_free(void *recognizer)',
}

/** Version functions some libvosk builds might export; the 0.3.x releases export none. */
const VERSION_SYMBOLS = ['vosk_version', 'vosk_get_version']

type KoffiLibrary = { func(prototype: string): (...args: unknown[]) => unknown }

function libraryVersion(lib: KoffiLibrary): VoskLibrary['version'] {
  for (const symbol of VERSION_SYMBOLS) {
    try {
      const version = lib.func(`const char *${symbol}()`)()
      if (typeof version === 'string' && version) return { version, source: `libvosk ${symbol}()` }
    } catch {
      // Not exported by this build: try the next name.
    }
  }
  const pkg = voskPackage()
  return {
    version: pkg?.version ?? 'unknown',
    source: 'the vosk npm package that ships the library (libvosk exports no version symbol)',
  }
}

/** dlopens libvosk and binds the functions dictum uses. */
export async function loadVosk(libraryPath: string): Promise<VoskLibrary> {
  const { default: koffi } = await import('koffi')
  const lib = koffi.load(libraryPath) as unknown as KoffiLibrary
  const native = Object.fromEntries(
    Object.entries(FUNCTIONS).map(([name, prototype]) => [name, lib.func(prototype)]),
  ) as unknown as VoskNative
  return { native, version: libraryVersion(lib) }
}
