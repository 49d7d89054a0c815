/**
 * `dictum-local/plugin`: what a third-party engine or AI provider imports. Definitions (`defineEngine`,
 * `defineProvider`) with their types, the errors a plugin may throw (a catalogue code turns into the HTTP
 * status and message users see), TypeBox for option schemas, and the prompt helpers the built-in providers use. Everything here is
 * the public contract: see docs/plugins.md.
 */

// TypeBox, which option schemas are written in: the same copy dictum validates them with.
export { type Static, type TSchema, Type } from '@sinclair/typebox'
export {
  type ArchiveKind,
  type Catalog,
  type CatalogEntry,
  catalogProblems,
  type FileCheck,
} from '../kernel/contracts/catalog.ts'
export {
  defineEngine,
  type EngineCapabilities,
  type EngineContext,
  type EngineCustomWord,
  type EngineDefinition,
  type EngineInstance,
  type EngineProbe,
  type EngineTranscribeRequest,
  type EngineTranscribeResult,
  type PluginLogger,
  type TranscriptSegment,
  type TranscriptWord,
} from '../kernel/contracts/engine.ts'
export {
  defineProvider,
  type ProviderCapabilities,
  type ProviderContext,
  type ProviderDefinition,
  type ProviderInstance,
  type ProviderProcessRequest,
  type ProviderProcessResult,
} from '../kernel/contracts/provider.ts'
export { DictumError, type ErrorCode, errors, isDictumError } from '../kernel/errors.ts'
export {
  type ChatPrompt,
  chatMessages,
  chatPrompt,
  cleanReply,
  DEFAULT_PROMPT,
  renderPrompt,
  TRANSCRIPT_PLACEHOLDER,
  wrapTranscript,
} from '../providers/common/prompt.ts'
