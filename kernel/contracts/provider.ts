/**
 * The public contract of an AI post-processing provider plugin.
 *
 * Same shape as engines: a module exports a cheap {@link ProviderDefinition} (`export default
 * defineProvider({...})`, a named export `provider`, or an array), the kernel validates its options and
 * creates an instance on first use. Config selects one with `ai.provider` and configures it under
 * `ai.providers.<id>`.
 */
import type { Static, TSchema } from '@sinclair/typebox'
import { WRITTEN_FOR } from './api-version.ts'
import type { PluginLogger } from './engine.ts'

export interface ProviderCapabilities {
  /** True when the provider runs entirely on this machine. */
  local: boolean
  /** True when the provider uses a language model (and so a prompt). */
  usesPrompt: boolean
}

/** One post-processing request. */
export interface ProviderProcessRequest {
  /** The raw text to enhance (never empty). */
  text: string
  /**
   * The prompt to use (already chosen by the kernel: per-app prompt, else the provider's configured
   * prompt, else the default). `${transcript}` in it has NOT been substituted; use `renderPrompt`.
   */
  prompt?: string
  /** Name of the frontmost application, when known (dictation). */
  appName?: string
  /**
   * True when dictum's editing stage (`dictation.commands`: spoken punctuation, "scratch that"…) already
   * ran on `text`: a provider must not carry the commands out again ("literally comma" left the word).
   */
  commandsApplied?: boolean
}

export interface ProviderProcessResult {
  /** The enhanced text. */
  text: string
  /** The model that produced it (e.g. `llama3.2:3b`, `gpt-4o-mini`, `rules`). */
  model: string
}

export interface ProviderContext<O = unknown> {
  /** The provider's options (config `ai.providers.<id>`), validated, defaults applied. */
  options: O
  dataDir: string
  logger: PluginLogger
}

export interface ProviderInstance {
  /** Optional warm-up (connect, check the model). Throwing marks the provider `failed`. */
  load?(): Promise<void>
  /**
   * Enhances one text. Must honour `signal` (the kernel aborts on timeout or when the client goes away).
   * Failures are thrown as Errors whose message says what went wrong; they must never contain an API key.
   */
  process(request: ProviderProcessRequest, signal: AbortSignal): Promise<ProviderProcessResult>
  /** Releases resources. Safe to call twice. */
  close?(): Promise<void>
}

export interface ProviderDefinition<S extends TSchema = TSchema> {
  /** Marks the definition as a provider (set by {@link defineProvider}; required when not using it). */
  kind?: 'provider'
  /**
   * The range of dictum's plugin API (`PLUGIN_API_VERSION`) this plugin was written for, as npm writes
   * ranges (`^1.0.0`). {@link defineProvider} sets it to `^` the API version of the SDK it comes from; a dictum whose
   * API is outside it refuses the plugin at start, naming the plugin, its range and dictum's version. Absent
   * (a definition made without {@link defineProvider}): not checked.
   */
  apiRange?: string
  /** Unique id, lower-case letters, digits and dashes. Config selects it with `ai.provider`. */
  id: string
  displayName: string
  description?: string
  /** TypeBox schema of the provider's options (config `ai.providers.<id>`). */
  optionsSchema: S
  capabilities(options: Static<S>): ProviderCapabilities
  /** Names of option keys holding secrets: masked by `dictum config`, never logged. */
  secretOptions?: string[]
  /** The model id reported when the options name none. */
  defaultModel?(options: Static<S>): string
  create(context: ProviderContext<Static<S>>): ProviderInstance | Promise<ProviderInstance>
}

export function defineProvider<S extends TSchema>(definition: ProviderDefinition<S>): ProviderDefinition<S> {
  return { apiRange: WRITTEN_FOR, ...definition, kind: 'provider' }
}
