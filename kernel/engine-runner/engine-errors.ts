/**
 * Translation of engine failures into catalogue errors, at the one place they enter the kernel. Every
 * detail names the engine, so a message in a log or a response says which plugin failed.
 */
import { DictumError, errors, isErrorCode } from '../../errors/catalogue.ts'
import type { WireError } from './protocol.ts'

/** `engine: message.` with exactly one closing punctuation mark, as the catalogue's messages expect. */
export function engineDetail(engineId: string, message: string): string {
  const text = message.trim() || 'no message'
  return `${engineId}: ${/[.!?]$/.test(text) ? text : `${text}.`}`
}

/** How a host process ended, in words: `exit code 255` or `signal SIGABRT`. */
export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `signal ${signal}`
  return `exit code ${code ?? 'unknown'}`
}

/**
 * What an engine threw in `transcribe` (or in a stream's `openStream`, `accept`, `finish`: the operation): its
 * DictumErrors keep their code and message (a catalogue message is the engine's answer to the user), anything
 * else is ENGINE_FAILED naming the engine and the operation. Either way the thrown error, rebuilt from the
 * wire, is the cause.
 */
export function transcribeFailure(
  engineId: string,
  wire: WireError,
  operation: EngineOperation = 'transcribe',
): DictumError {
  const cause = wireCause(wire)
  if (wire.code && isErrorCode(wire.code)) {
    return new DictumError(wire.code, wire.message, { extra: wire.extra, cause })
  }
  return errors.ENGINE_FAILED(engineDetail(engineId, `${operation}: ${wire.message}`), { cause })
}

/** The engine calls a failure can come from. */
export type EngineOperation = 'transcribe' | 'openStream' | 'accept' | 'finish'

/**
 * What an engine threw while it was created or loaded (or its module imported): ENGINE_LOAD_FAILED naming
 * the engine (the catalogue's message names the operation), a DictumError's extra fields (e.g. `fix`) kept,
 * the thrown error as the cause.
 */
export function loadFailure(engineId: string, wire: WireError): DictumError {
  return errors.ENGINE_LOAD_FAILED(engineDetail(engineId, wire.message), {
    extra: wire.extra,
    cause: wireCause(wire),
  })
}

/** The engine's result was over the size cap: the kernel's finding, not the engine's error. */
export function oversizeFailure(engineId: string, reason: string): DictumError {
  return errors.ENGINE_FAILED(engineDetail(engineId, reason))
}

/** The error the engine threw, as far as it crossed: its name, message, stack and code. */
export function wireCause(wire: WireError): Error {
  const cause = new Error(wire.message)
  cause.name = wire.name ?? 'Error'
  cause.stack = wire.stack ?? `${cause.name}: ${wire.message}`
  if (wire.code) Object.assign(cause, { code: wire.code })
  return cause
}

export function crashError(engineId: string, how: string, during: 'load' | 'transcribe'): DictumError {
  if (during === 'load') {
    return errors.ENGINE_LOAD_FAILED(
      engineDetail(engineId, `the engine process ended (${how}) while loading`),
    )
  }
  return errors.ENGINE_CRASHED(engineDetail(engineId, `the engine process ended (${how})`))
}

/** The engine has no `streaming` capability with these options, or its instance no `openStream`. */
export function streamingUnsupported(engineId: string): DictumError {
  return errors.ENGINE_STREAMING_UNSUPPORTED(
    engineDetail(engineId, 'no streaming capability with its options'),
  )
}

export function timeoutError(engineId: string, ms: number): DictumError {
  return errors.ENGINE_TIMEOUT(engineDetail(engineId, `no result after ${ms} ms; the engine was stopped`))
}

export function loadTimeoutError(engineId: string, ms: number): DictumError {
  return errors.ENGINE_LOAD_FAILED(engineDetail(engineId, `loading took longer than ${ms} ms`))
}

/** The host used more memory than `speech.memoryLimitMb`; during a load it is a load failure. */
export function memoryLimitError(
  engineId: string,
  limitMb: number,
  during: 'load' | 'transcribe',
): DictumError {
  const detail = `the engine process used more than its memory limit of ${limitMb} MB (speech.memoryLimitMb)`
  if (during === 'load') return errors.ENGINE_LOAD_FAILED(engineDetail(engineId, `${detail} while loading`))
  return errors.ENGINE_MEMORY_LIMIT(engineDetail(engineId, `${detail}; the engine was stopped`))
}

/**
 * A host died before it acknowledged a request (it was already dying when the request was sent), so the
 * engine never saw it: the pool may run it once more on a fresh host. `failure` is the answer otherwise.
 */
export class NotStartedError extends Error {
  readonly failure: DictumError

  constructor(failure: DictumError) {
    super(`the engine host ended before it started the request: ${failure.message}`)
    this.name = 'NotStartedError'
    this.failure = failure
  }
}
