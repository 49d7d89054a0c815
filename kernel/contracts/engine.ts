/**
 * The public contract of a speech-engine plugin.
 *
 * A plugin module (built in under `engines/<id>/index.ts`, or a third-party module named in config `plugins`)
 * exports a cheap {@link EngineDefinition}: `export default defineEngine({...})` or a named export `engine`
 * (an array of definitions is accepted too). The definition is read at boot and checked; nothing heavy may
 * happen at import time. Native code is imported lazily inside {@link EngineDefinition.create} or
 * {@link EngineInstance.load}.
 *
 * Engines with `isolation: 'process'` (the default) run inside a child process (the engine host) that imports
 * the same module, so a native crash, abort or hang never reaches the API process. Their options and
 * results must therefore be structured-cloneable.
 */
import type { Static, TSchema } from '@sinclair/typebox'
import { WRITTEN_FOR } from './api-version.ts'
import type { CatalogEntry } from './catalog.ts'

/** The sample rate of the audio every engine is given: 16 kHz mono. */
export const ENGINE_SAMPLE_RATE = 16000

/** Minimal logger handed to plugins (a pino logger in practice). */
export interface PluginLogger {
  debug(obj: unknown, msg?: string): void
  info(obj: unknown, msg?: string): void
  warn(obj: unknown, msg?: string): void
  error(obj: unknown, msg?: string): void
}

/** What an engine can do with the model its options select. Shown by `GET /v1/engines`. */
export interface EngineCapabilities {
  /** True when custom words (hotwords) bias recognition with the configured model. */
  customWords: boolean
  /** True when results carry per-word timings. */
  wordTimestamps: boolean
  /** True when results carry segment timings. */
  segmentTimestamps: boolean
  /** Languages the model transcribes (BCP-47 / ISO 639-1 codes), or `['*']` when not restricted. */
  languages: string[]
  /**
   * Longest piece of audio, in seconds, the engine accepts in one call. Longer audio is cut at pauses by the
   * kernel's VAD before it reaches the engine. `null` means no limit.
   */
  maxAudioSeconds: number | null
  /**
   * True when the instance implements {@link EngineInstance.openStream}: it decodes audio as it arrives and
   * gives partial hypotheses mid-utterance. Absent or false: live dictation still works with this engine,
   * the kernel cuts the stream at pauses (VAD) and transcribes each utterance whole (final results only).
   */
  streaming?: boolean
  /**
   * True when results carry the engine's own certainty per token or word: {@link EngineTranscribeResult.tokens}
   * or `confidence` on every word. OpenAI's `include[]=logprobs` is answered from them (absent: false).
   */
  logprobs?: boolean
  /**
   * True when the model can translate speech into English ({@link EngineTranscribeRequest.task}
   * `translate`; OpenAI's `/v1/audio/translations`). Absent: false.
   */
  translate?: boolean
}

/** One custom word of the dictionary, as the engine receives it. */
export interface EngineCustomWord {
  /** Canonical form, as it should appear in transcripts. */
  text: string
  /** Boost weight in (0, 100], or null for the engine's default. */
  weight: number | null
  /** Alternative spoken forms (lower-case). */
  aliases: string[]
}

/** One transcription request, as the engine receives it. */
export interface EngineTranscribeRequest {
  /**
   * 16 kHz mono PCM, float samples in [-1, 1]. Valid until `transcribe` settles: the engine host reuses their
   * memory for the next piece, so an engine that needs them later must copy them.
   */
  samples: Float32Array
  /** The dictionary's custom words; engines without the `customWords` capability ignore them. */
  customWords: EngineCustomWord[]
  /** Optional language hint (ISO 639-1), when the caller gave one. */
  language?: string
  /** Optional prompt / context text, for engines that take one. */
  prompt?: string
  /** Offset of this piece in the whole recording, in seconds (timings in the result are relative to it). */
  offsetSeconds?: number
  /**
   * Languages the caller said the audio may be in (ISO 639-1, OpenAI's `languages`), when it gave several;
   * `language` then holds the first one the engine transcribes.
   */
  languages?: string[]
  /** `translate`: English text whatever the spoken language (engines with the `translate` capability). */
  task?: 'transcribe' | 'translate'
}

/** One token of the engine's output with the engine's natural-log probability of it. */
export interface TranscriptToken {
  /** The token's text; concatenated in order, the tokens spell the result's text (spaces included). */
  token: string
  /** Natural log of the engine's probability, <= 0. */
  logprob: number
}

export interface TranscriptWord {
  word: string
  /** Seconds from the start of the piece. */
  start: number
  end: number
  /** 0..1 where the engine gives one. */
  confidence?: number
}

export interface TranscriptSegment {
  text: string
  /** Seconds from the start of the piece. */
  start: number
  end: number
}

/** What an engine returns for one piece of audio. */
export interface EngineTranscribeResult {
  /** The recognised text (custom-word aliases already written back as their canonical text). */
  text: string
  /**
   * The engine's own certainty mapped to 0..1, or null when the engine gives none (the kernel then
   * reports a documented fallback).
   */
  confidence: number | null
  words?: TranscriptWord[]
  segments?: TranscriptSegment[]
  /** Language detected or used, when known. */
  language?: string
  /** The engine's tokens with their log-probabilities, when it has them (the `logprobs` capability). */
  tokens?: TranscriptToken[]
  /** Diagnostics (e.g. the hotwords handed to the recognizer); never shown to API clients by default. */
  debug?: Record<string, unknown>
}

/** How a live utterance is decoded: what {@link EngineInstance.openStream} is given. */
export interface EngineStreamOptions {
  /** The dictionary's custom words; engines without the `customWords` capability ignore them. */
  customWords: EngineCustomWord[]
  /** Optional language hint (ISO 639-1). */
  language?: string
  /** Optional prompt / context text, for engines that take one. */
  prompt?: string
}

/** The engine's current best guess for the utterance so far. Later partials may revise earlier words. */
export interface EnginePartial {
  /** The whole hypothesis of the utterance so far (not a delta), custom-word aliases written back. */
  text: string
}

/**
 * One live utterance being decoded (streaming capability). The kernel calls `accept` with consecutive chunks
 * of 16 kHz mono float samples (each call awaited before the next), then exactly one of `finish` or `cancel`.
 * Chunks are valid only during the call: copy what must be kept. One stream is one utterance; the kernel
 * opens a new stream for the next one, and may hold several streams of one instance open at once (one per
 * live session), so each stream needs its own decoder state.
 */
export interface EngineStream {
  /** Decodes a chunk; returns the utterance's hypothesis when it changed, else null. */
  accept(samples: Float32Array): EnginePartial | null | Promise<EnginePartial | null>
  /**
   * Ends the utterance and returns its final result, timings relative to the utterance's first sample (the
   * kernel adds the offset). The final text should be what `transcribe` gives for the same audio.
   */
  finish(): Promise<EngineTranscribeResult>
  /** Drops the utterance and frees the stream's resources. Safe to call after `finish`, and twice. */
  cancel(): void
  /**
   * Optional: the utterance's audio is complete; `finish` follows once the chunks already given are
   * accepted. Called as soon as the kernel knows, possibly while a call of the stream is in flight (so it
   * should only set a flag). An engine whose partials come from a pass of their own (not the one that gives
   * the final) can stop that pass here and free what it holds for it: nobody waits for those partials any
   * more, and a host that has fallen behind catches up sooner.
   */
  finishing?(): void
  /**
   * Optional: the engine host holds more of this stream's audio not yet accepted than a live partial is
   * worth waiting for (4 s in an engine host: it has fallen behind real time), so partials from here on
   * would come late. Like `finishing`, it may come while a call is in flight (set a flag), and an engine
   * whose partials come from a pass of their own may stop that pass: the time goes to the finals users wait
   * for. The final result must not change.
   */
  fallenBehind?(): void
}

/** Everything an engine instance is given when created. */
export interface EngineContext<O = unknown> {
  /** The engine's options (config `speech.engines.<id>`), validated against its schema, defaults applied. */
  options: O
  /** dictum's data directory. */
  dataDir: string
  /** Where downloaded models live (`<dataDir>/models`). */
  modelsDir: string
  logger: PluginLogger
}

/** The result of a cheap availability check. */
export type EngineProbe = { available: true } | { available: false; reason: string; fix?: string }

/** A live engine: holds the model. */
export interface EngineInstance {
  /**
   * Loads the model. Called once before the first `transcribe`; the kernel makes parallel first requests
   * share one load. Throwing here marks the engine `failed` with the error's message.
   */
  load(): Promise<void>
  /** Transcribes one piece of audio (no longer than `capabilities.maxAudioSeconds`). */
  transcribe(request: EngineTranscribeRequest, signal?: AbortSignal): Promise<EngineTranscribeResult>
  /**
   * Opens a live utterance (the `streaming` capability; see {@link EngineStream}). Called after `load()`.
   * Omitted: the engine does not stream, and the kernel transcribes each utterance whole.
   */
  openStream?(options: EngineStreamOptions): EngineStream | Promise<EngineStream>
  /** Releases the model and every native resource. Safe to call twice. */
  close(): Promise<void>
}

/** The cheap, static description of an engine plugin. */
export interface EngineDefinition<S extends TSchema = TSchema> {
  /** Marks the definition as an engine (set by {@link defineEngine}; required when not using it). */
  kind?: 'engine'
  /**
   * The range of dictum's plugin API (`PLUGIN_API_VERSION`) this plugin was written for, as npm writes
   * ranges (`^1.0.0`). {@link defineEngine} sets it to `^` the API version of the SDK it comes from; a dictum whose
   * API is outside it refuses the plugin at start, naming the plugin, its range and dictum's version. Absent
   * (a definition made without {@link defineEngine}): not checked.
   */
  apiRange?: string
  /** Unique id: lower-case letters, digits and dashes. Config selects it with `speech.engine`. */
  id: string
  /** Human name, as reported in `provider` of transcription results. May depend on the options. */
  displayName: string | ((options: Static<S>) => string)
  /** One line about the engine, for `GET /v1/engines` and `dictum engines`. */
  description?: string
  /** TypeBox schema of the engine's options (config `speech.engines.<id>`); defaults are applied. */
  optionsSchema: S
  /** Capabilities with the given options (e.g. `customWords` depends on the configured model). */
  capabilities(options: Static<S>): EngineCapabilities
  /**
   * `'process'` (default): the engine runs in a child process; a crash or hang cannot take the API down.
   * `'none'`: the engine runs in the API process (only for engines without native code, e.g. remote).
   */
  isolation?: 'process' | 'none'
  /**
   * Cheap availability check (library present, model folder present). Runs in the API process, so it must
   * not load native code that could crash. Omitted: always available.
   */
  probe?(context: EngineContext<Static<S>>): Promise<EngineProbe>
  /**
   * Catalog model ids (`dictum models list`) these options need. With config `models.autoPull` the kernel
   * pulls the missing ones before the first load. Omitted: none.
   */
  models?(options: Static<S>): string[]
  /**
   * The models this engine can download (`dictum models list`, `GET /v1/models`, `dictum models pull <id>`),
   * each with `engine` set to this definition's `id`. Checked at boot; ids are unique across all engines. The
   * engine finds an installed one in `<modelsDir>/<id>/`. Omitted: none.
   */
  catalog?: readonly CatalogEntry[]
  /**
   * Memory one engine process needs with these options (its model loaded and transcribing), in MB. With
   * config `speech.concurrency: "auto"` the kernel runs no more processes than the machine's free memory
   * holds at this size. Omitted: unknown, the machine's cores alone decide.
   */
  memoryEstimateMb?: number | ((options: Static<S>) => number)
  /**
   * The pronunciation dictionary of the configured model: a CMUdict-format file (`word phone…` in ARPAbet,
   * alternates as `word(2)`; the SDK's `readDictionary` reads it), or null. dictum reads it to tell how alike
   * the heard and the meant words sound when it learns from a correction of this engine's text. Runs in the
   * API process and must be cheap (a path, nothing read). Omitted: none (dictum spells words by espeak-ng).
   */
  pronunciationDictionary?(context: EngineContext<Static<S>>): string | null
  /** Creates an instance. Must be cheap; heavy work belongs in `load()`. */
  create(context: EngineContext<Static<S>>): EngineInstance | Promise<EngineInstance>
}

/** Identity helper that gives plugin authors type inference for their options. */
export function defineEngine<S extends TSchema>(definition: EngineDefinition<S>): EngineDefinition<S> {
  return { apiRange: WRITTEN_FOR, ...definition, kind: 'engine' }
}
