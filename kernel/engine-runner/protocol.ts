/**
 * Messages between the API process and an engine host (child_process IPC with `serialization: 'advanced'`,
 * so typed arrays cross as they are).
 */
import type {
  EnginePartial,
  EngineStreamOptions,
  EngineTranscribeRequest,
  EngineTranscribeResult,
} from '../contracts/engine.ts'
import type { WireAudio } from './audio-handoff.ts'
import type { EngineRunnerContext } from './types.ts'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

/**
 * An error as it crosses IPC. `code` is set when the engine threw a DictumError; `name` and `stack` are the
 * thrown error's, for the cause of the error rebuilt in the API process.
 */
export interface WireError {
  message: string
  code?: string
  extra?: Record<string, unknown>
  name?: string
  stack?: string
}

export type ParentMessage =
  | { type: 'init'; engineId: string; moduleSource: string; context: EngineRunnerContext }
  /** The request without its samples, which travel as `audio` (inline or a shared-memory file). */
  | { type: 'transcribe'; id: number; request: Omit<EngineTranscribeRequest, 'samples'>; audio: WireAudio }
  | { type: 'abort'; id: number }
  | { type: 'close' }
  /**
   * Live utterances (streams), any number at once on the host's one engine instance; each stream's messages
   * are handled in the order sent. Stream ids are the parent's, from the same counter as requests. Chunks are
   * small (a fraction of a second) and arrive while earlier ones are decoded, so they always travel inline:
   * the shared-memory handoff holds one piece at a time.
   */
  | { type: 'stream-open'; id: number; options: EngineStreamOptions }
  | { type: 'stream-write'; id: number; samples: Float32Array }
  | { type: 'stream-finish'; id: number }
  | { type: 'stream-cancel'; id: number }

export type HostMessage =
  /** The host listens: the parent may send `init`. */
  | { type: 'hello' }
  | { type: 'ready' }
  | { type: 'load-error'; error: WireError }
  /** Sent as soon as a `transcribe` arrives, before the engine runs: a host that dies before sending it
   * never started the request, which may then safely run on another host. */
  | { type: 'started'; id: number }
  | { type: 'result'; id: number; result: EngineTranscribeResult }
  /** The engine threw (or its result could not be sent). */
  | { type: 'error'; id: number; error: WireError }
  /** The engine's result (or a stream's final result) was over the size cap (result-limit.ts): the reason, never the result. */
  | { type: 'oversize'; id: number; reason: string }
  | { type: 'log'; level: LogLevel; obj: unknown; msg?: string }
  /** The engine opened the stream: its chunks may follow (the parent sends them at once anyway). */
  | { type: 'stream-opened'; id: number }
  | { type: 'stream-partial'; id: number; partial: EnginePartial }
  | { type: 'stream-final'; id: number; result: EngineTranscribeResult }
  /** The engine threw in one of the stream's calls: the stream is over. */
  | { type: 'stream-error'; id: number; operation: 'openStream' | 'accept' | 'finish'; error: WireError }

export function toWireError(error: unknown): WireError {
  if (error instanceof Error) {
    const { code, extra } = error as { code?: unknown; extra?: unknown }
    const wire: WireError = { message: error.message, name: error.name }
    if (error.stack !== undefined) wire.stack = error.stack
    if (error.name === 'DictumError' && typeof code === 'string') wire.code = code
    if (wire.code && extra && typeof extra === 'object')
      wire.extra = { ...(extra as Record<string, unknown>) }
    return wire
  }
  return { message: String(error) }
}
