import type { DictumError } from '../../errors/catalogue.ts'
import type {
  EngineDefinition,
  EnginePartial,
  EngineStreamOptions,
  EngineTranscribeRequest,
  EngineTranscribeResult,
  PluginLogger,
} from '../contracts/engine.ts'
import type { SlotPriority } from './slot-queue.ts'

export type { SlotPriority }

/** What the kernel's engine registry hands to {@link createEngineRunner} for one engine. */
export interface EngineRunnerOptions {
  engineId: string
  /** What the host imports to find the definition: an absolute file path (.ts or .js) or a package name. */
  moduleSource: string
  isolation: 'process' | 'none'
  /** Required for isolation 'none' (and handy for tests); for 'process' the host re-imports moduleSource. */
  definition?: EngineDefinition
  /** Must be structured-cloneable for isolation 'process'. */
  context: EngineRunnerContext
  /** Config `speech.concurrency`: most transcriptions at once; more wait in a FIFO queue. */
  concurrency: number
  /** Config `speech.timeoutMs`: a transcription running longer stops its host and fails with ENGINE_TIMEOUT. */
  requestTimeoutMs: number
  /** Config `speech.loadTimeoutMs`: a model load taking longer fails with ENGINE_LOAD_FAILED. */
  loadTimeoutMs: number
  /**
   * Config `speech.memoryLimitMb`, process isolation only: a host using more memory is killed and its
   * request fails with ENGINE_MEMORY_LIMIT. Null or absent: half of the machine's memory.
   */
  memoryLimitMb?: number | null
  /** How often a busy or loading host's resident memory is sampled (default 100 ms); 0: never (V8's heap limit still applies). */
  memorySampleMs?: number
  logger: PluginLogger
  /**
   * Process isolation: where large pieces of audio are handed to hosts (kernel/engine-runner/audio-handoff.ts).
   * Default: `/dev/shm` when writable; null sends every piece through the IPC pipe.
   */
  audioDir?: string | null
  /** Process isolation: most hosts that carry streams (default: `os.availableParallelism()`). */
  maxStreamHosts?: number
  /** Process isolation: a stream host left without streams stops after this long (default 30 s). */
  streamHostIdleMs?: number
}

export interface EngineRunnerContext {
  options: unknown
  dataDir: string
  modelsDir: string
}

export type EngineRunnerTimeouts = Pick<EngineRunnerOptions, 'requestTimeoutMs' | 'loadTimeoutMs'>

export type EngineRunnerState = 'idle' | 'loading' | 'ready' | 'failed' | 'closed'

/** Runs one engine: loads it, queues and transcribes, contains its failures, closes it. */
export interface EngineRunner {
  readonly state: EngineRunnerState
  /** The last load failure, crash, timeout or invalid model (MODEL_INVALID); cleared by a successful load. */
  readonly lastError: DictumError | null
  /** Idempotent and single-flight: parallel callers share one load. After a failure the next call retries. */
  load(): Promise<void>
  /**
   * Loads first when needed. Rejects with catalogue errors only (or the signal's reason when aborted).
   * `priority` `low` (transcription jobs) waits behind every `normal` request queued for the engine.
   */
  transcribe(
    request: EngineTranscribeRequest,
    signal?: AbortSignal,
    priority?: SlotPriority,
  ): Promise<EngineTranscribeResult>
  /**
   * Opens a live utterance on the engine (only for engines with the `streaming` capability; others reject
   * with ENGINE_STREAMING_UNSUPPORTED). Loads first when needed. With process isolation the stream lives in
   * an engine host, beside the hosts that serve `transcribe` so that a live session never waits behind a
   * long file; a host crash fails every stream it carried (their `failed` promise rejects with the crash's
   * catalogue error) and the next stream starts a new host.
   */
  openStream(options: EngineStreamOptions, signal?: AbortSignal): Promise<RunnerStream>
  /**
   * Optional (runners with stream hosts): a live session is open on the engine. While any hold remains, the
   * last stream host is kept when it has no stream (others still stop after their idle time), so a session's
   * next utterance after a pause does not wait for a new host to start and load the model, nor pay its live
   * decoders' setup again; without a stream host, one starts at once (loading while the user starts
   * speaking). Returns the function that ends the hold (more calls do nothing).
   */
  holdStreams?(): () => void
  /**
   * New `requestTimeoutMs` / `loadTimeoutMs` for the transcriptions and loads that start from now on (a
   * config edit of the timeouts needs no restart of the loaded engine).
   */
  setTimeouts(timeouts: EngineRunnerTimeouts): void
  /** Stops every host and rejects queued requests. Safe to call twice. */
  close(): Promise<void>
}

/**
 * A live utterance as the kernel sees it, wherever the engine runs. `write` never blocks: chunks are queued
 * and decoded in order, partial hypotheses arrive through `onPartial`. Exactly one of `finish` or `cancel`
 * ends it.
 */
export interface RunnerStream {
  /** Queues 16 kHz mono float samples (copied or transferred: the caller may reuse the array). */
  write(samples: Float32Array): void
  /** Called with each new hypothesis of the utterance, in order. */
  onPartial(listener: (partial: EnginePartial) => void): void
  /** Decodes what is queued and returns the final result (rejects with a catalogue error). */
  finish(): Promise<EngineTranscribeResult>
  /** Drops the utterance; a pending `finish` rejects with the abort. Safe to call twice. */
  cancel(): void
  /**
   * Rejects when the stream fails before `finish` (engine error, host crash, memory limit): the session
   * reports it. Never resolves otherwise.
   */
  readonly failed: Promise<never>
}
