/**
 * `dictum-local/plugin`: what a third-party engine or AI provider imports. Definitions (`defineEngine`,
 * `defineProvider`) with their types, the errors a plugin may throw (a catalogue code turns into the HTTP
 * status and message users see), TypeBox for option schemas, the prompt helpers the built-in providers use, and
 * the helpers every built-in plugin talks HTTP, keeps secrets out of messages and limits time with. Everything
 * here is the public contract: see docs/plugins.md.
 */

// TypeBox, which option schemas are written in: the same copy dictum validates them with.
export { type Static, type TSchema, Type } from '@sinclair/typebox'
// Audio and model files: 16-bit WAV for engines that send audio on, ONNX model files read without a runtime.
export { floatToInt16, floatToPcm16 } from '../audio/pcm-convert.ts'
export { encodeWav16 } from '../audio/wav-encode.ts'
export { DictumError, type ErrorCode, errors, isDictumError } from '../errors/catalogue.ts'
// The plugin API version this SDK implements (a definition's `apiRange` is checked against dictum's at start).
export { PLUGIN_API_VERSION } from '../kernel/contracts/api-version.ts'
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
  type EnginePartial,
  type EngineProbe,
  type EngineStream,
  type EngineStreamOptions,
  type EngineTranscribeRequest,
  type EngineTranscribeResult,
  type PluginLogger,
  type TranscriptSegment,
  type TranscriptToken,
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
// dictum's cache folder, and writing a file there whole or not at all (an engine's derived model files).
export { dictumCacheDir, writeCacheFile } from '../lib/cache-files.ts'
// Outbound HTTP: time limit, abort, bounded body, failures in one vocabulary, URLs fit to show.
export {
  discardBody,
  fetchReply,
  MAX_REPLY_BYTES,
  networkFailure,
  type OutboundExchange,
  OutboundFailure,
  type OutboundReply,
  type OutboundRequest,
  openResponse,
  readBounded,
  redactUrl,
  vendorMessage,
} from '../lib/http-client.ts'
// Secrets: what they look like, and keeping them out of messages.
export { isSecretName, maskUrlCredentials, redact, redactError, secretValues } from '../lib/secrets.ts'
// Time limits, abortable waits.
export { raceAbort, sleep, type TimeLimit, timeLimit } from '../lib/timeout.ts'
// Dictated text: the tokens and the editing stage ("comma", "new line", "scratch that"…) dictum applies to
// every dictation (text/commands.ts), for providers that clean dictated text (the rules provider).
export { applyCommandTokens, applyDictationCommands, type EditedText } from '../text/commands.ts'
// Pronunciations (ARPAbet): a model's CMUdict-format dictionary, and espeak-ng's letter to sound for the
// words it lacks, for engines that add custom words to their model's dictionary.
export {
  ipaToArpabet,
  letterToSound,
  type PronunciationDictionary,
  readDictionary,
} from '../text/pronunciations.ts'
export { render as renderTokens } from '../text/render.ts'
export {
  erase,
  matchPhrase,
  nextVisible,
  normalWord,
  previousVisible,
  type Token,
  tokenize,
  wordAt,
} from '../text/tokens.ts'
export { OnnxFileError, readOnnxFile } from '../vad/onnx-file.ts'
export {
  type ChatPrompt,
  chatMessages,
  chatPrompt,
  cleanReply,
  DEFAULT_PROMPT,
  renderPrompt,
  TRANSCRIPT_PLACEHOLDER,
  wrapTranscript,
} from './prompt.ts'
