/**
 * One live item's transcription. With a streaming engine the audio goes to a runner stream as it comes
 * (partials while speech goes on, `finish()` at the end); without one (the fallback) it is kept and
 * transcribed whole at the end, as a file of that audio would be. An engine that declares streaming but
 * whose runner refuses it falls back too.
 */
import { concatSamples } from '../audio/samples.ts'
import { type DictumError, errors, isDictumError } from '../errors/catalogue.ts'
import type { EngineCustomWord, EngineTranscribeResult } from '../kernel/contracts/engine.ts'
import type { RunnerStream } from '../kernel/engine-runner/types.ts'
import type { AcquiredEngine } from '../kernel/registry.ts'

export const SAMPLE_RATE = 16000

export interface ItemRequest {
  customWords: EngineCustomWord[]
  language?: string
  languages?: string[]
  prompt?: string
}

export interface ItemOptions {
  id: string
  /** Absolute position (session samples, 16 kHz) of the item's first sample. */
  start: number
  engine: AcquiredEngine
  /** Open a runner stream (the engine streams and its runner has not refused yet). */
  stream: boolean
  request: ItemRequest
  /** Each new hypothesis of a streaming engine, in order. */
  onPartial: (text: string) => void
  /** The runner refused a stream (ENGINE_STREAMING_UNSUPPORTED): later items should not ask again. */
  onStreamRefused: () => void
  /** Keep a copy of the item's samples for its history entry (`takeRecording`), whatever the path. */
  keepRecording?: boolean
}

/** A catalogue error for whatever an engine call threw. */
export function asDictumError(error: unknown): DictumError {
  if (isDictumError(error)) return error
  return errors.ENGINE_FAILED((error as Error)?.message ?? String(error), { cause: error })
}

export class LiveItem {
  readonly id: string
  readonly start: number
  /** Samples written so far. */
  length = 0
  readonly #options: ItemOptions
  readonly #abort = new AbortController()
  /** Audio kept for a whole transcription, or until the stream is open. */
  #parts: Float32Array[] = []
  #stream: RunnerStream | null = null
  #whole: boolean
  readonly #opened: Promise<void>
  #failure: DictumError | null = null
  /** The item's samples for history (`keepRecording`), bounded as the item is (its longest). */
  #recording: Float32Array[] | null

  constructor(options: ItemOptions) {
    this.id = options.id
    this.start = options.start
    this.#options = options
    this.#whole = !options.stream
    this.#recording = options.keepRecording ? [] : null
    this.#opened = options.stream ? this.#open() : Promise.resolve()
  }

  /** Seconds from the session's first sample. */
  get startSeconds(): number {
    return this.start / SAMPLE_RATE
  }

  get endSeconds(): number {
    return (this.start + this.length) / SAMPLE_RATE
  }

  write(samples: Float32Array): void {
    if (samples.length === 0) return
    this.length += samples.length
    // Copied before a stream may hand the buffer on to an engine host.
    this.#recording?.push(samples.slice())
    if (this.#failure) return
    if (this.#stream) this.#stream.write(samples)
    else this.#parts.push(samples.slice())
  }

  /**
   * The item's result, once its audio is complete. `hasSpeech` (the fallback only): a check that the
   * audio holds speech at all, run beside the engine; without speech the result is empty.
   */
  async end(hasSpeech?: (samples: Float32Array) => Promise<boolean>): Promise<EngineTranscribeResult> {
    await this.#opened
    if (this.#failure) throw this.#failure
    const stream = this.#stream
    if (stream) return Promise.race([stream.finish(), stream.failed])
    const samples = concatSamples(this.#parts, this.length)
    this.#parts = []
    if (samples.length === 0) return { text: '', confidence: null }
    const { request, engine } = this.#options
    const [result, speech] = await Promise.all([
      engine.runner.transcribe({ samples, ...request, offsetSeconds: this.startSeconds }, this.#abort.signal),
      hasSpeech ? hasSpeech(samples) : true,
    ])
    return speech ? result : { text: '', confidence: null }
  }

  /** Drops the item: its stream is cancelled, its transcription aborted. */
  cancel(): void {
    this.#abort.abort(errors.INTERNAL('the live item was cancelled'))
    this.#stream?.cancel()
    this.#parts = []
    this.#recording = null
  }

  /** The item's samples (once; `keepRecording`), or null. */
  takeRecording(): Float32Array | null {
    const parts = this.#recording
    this.#recording = null
    return parts ? concatSamples(parts, this.length) : null
  }

  async #open(): Promise<void> {
    const { engine, request, onPartial, onStreamRefused } = this.#options
    try {
      const stream = await engine.runner.openStream(request, this.#abort.signal)
      if (this.#abort.signal.aborted) {
        stream.cancel()
        return
      }
      stream.failed.catch((error: unknown) => {
        this.#failure ??= asDictumError(error)
      })
      stream.onPartial((partial) => onPartial(partial.text))
      for (const part of this.#parts) stream.write(part)
      this.#parts = []
      this.#stream = stream
    } catch (error) {
      if (isDictumError(error) && error.code === 'ENGINE_STREAMING_UNSUPPORTED') {
        this.#whole = true
        onStreamRefused()
        return
      }
      this.#failure = asDictumError(error)
      this.#parts = []
    }
  }

  /** True when the item is transcribed whole at its end. */
  get whole(): boolean {
    return this.#whole
  }
}
