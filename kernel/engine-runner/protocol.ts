/**
 * Messages between the API process and an engine host (child_process IPC with `serialization: 'advanced'`,
 * so typed arrays cross as they are).
 */
import type { EngineTranscribeRequest, EngineTranscribeResult } from '../contracts/engine.ts'
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
  /** The engine's result was over the size cap (result-limit.ts): the reason, never the result. */
  | { type: 'oversize'; id: number; reason: string }
  | { type: 'log'; level: LogLevel; obj: unknown; msg?: string }

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
