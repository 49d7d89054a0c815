/**
 * Server-side turn detection for one live session (OpenAI `server_vad`): a Silero detector of its own
 * (sherpa-onnx, created with the session's threshold and silence duration) told window by window whether
 * speech goes on. Speech starts when the detector is sure (after `minSpeechSeconds` of it, dated back to
 * its onset as sherpa-onnx does) and stops after `silenceDurationMs` of silence. Detectors run in the
 * turn-detection thread (turn-thread.ts), never on the API's event loop.
 */
import { createNativeVad, type NativeVad } from '../vad/native.ts'

export const SAMPLE_RATE = 16000
/** Silero's window at 16 kHz. */
export const WINDOW = 512

/**
 * The speech thresholds the Silero VAD takes: sherpa-onnx refuses others (and then logs a line for every
 * window fed), so they are refused where a session is configured, never passed on.
 */
export const THRESHOLD_RANGE = { above: 0.01, below: 1 } as const

/** Why `threshold` is not one the VAD takes (a phrase for an error message), or null. */
export function thresholdProblem(threshold: number): string | null {
  const { above, below } = THRESHOLD_RANGE
  if (typeof threshold === 'number' && threshold > above && threshold < below) return null
  return `must be a number above ${above} and below ${below} (the range the Silero VAD takes)`
}

/** Samples the detector looks back when speech starts (sherpa-onnx dates a segment's start back by two
 * windows and the minimum speech length): what the session must keep before it. */
export function leadInOf(options: Pick<TurnDetectorOptions, 'minSpeechSeconds'>): number {
  return 2 * WINDOW + Math.round(options.minSpeechSeconds * SAMPLE_RATE)
}

export type TurnEvent = { type: 'start'; at: number } | { type: 'stop'; at: number }

export interface TurnDetectorOptions {
  /** The vetted Silero model file (vad/service.ts). */
  model: string
  threshold: number
  silenceDurationMs: number
  /** Config `vad.minSpeechSeconds`. */
  minSpeechSeconds: number
  /** The longest item: the detector's buffer holds at least this much open speech. */
  maxUtteranceSeconds: number
  /** Absolute position (session samples) of the first sample this detector is fed. */
  origin: number
}

export class TurnDetector {
  readonly #vad: NativeVad
  readonly #leadIn: number
  /** Absolute position of sherpa-onnx's sample 0 (moves on at each cut: the detector starts afresh). */
  #origin: number
  /** Samples fed since the origin (sherpa-onnx's own positions). */
  #fed = 0
  #speaking = false

  constructor(options: TurnDetectorOptions) {
    const problem = thresholdProblem(options.threshold)
    if (problem) throw new RangeError(`turn detection threshold ${problem}`)
    this.#leadIn = leadInOf(options)
    this.#origin = options.origin
    this.#vad = createNativeVad(
      {
        sileroVad: {
          model: options.model,
          threshold: options.threshold,
          minSilenceDuration: options.silenceDurationMs / 1000,
          minSpeechDuration: options.minSpeechSeconds,
          // the session cuts items itself (maxUtteranceSeconds); sherpa-onnx's own tightening stays out of it
          maxSpeechDuration: options.maxUtteranceSeconds + 60,
          windowSize: WINDOW,
        },
        sampleRate: SAMPLE_RATE,
        numThreads: 1,
        provider: 'cpu',
        debug: 0,
      },
      options.maxUtteranceSeconds + 10,
    )
  }

  /** Samples the detector looks back when speech starts: what the session must keep before it. */
  get leadIn(): number {
    return this.#leadIn
  }

  /** Feeds one window (WINDOW samples, or fewer at a commit); returns the turn it ended or started. */
  accept(window: Float32Array): TurnEvent | null {
    this.#vad.acceptWaveform(window)
    this.#fed += window.length
    const detected = this.#vad.isDetected()
    let event: TurnEvent | null = null
    if (detected && !this.#speaking) {
      event = { type: 'start', at: this.#origin + Math.max(0, this.#fed - this.#leadIn) }
    } else if (!detected && this.#speaking) {
      const end = this.#drain()
      event = { type: 'stop', at: this.#origin + (end ?? this.#fed) }
    }
    this.#drain()
    this.#speaking = detected
    return event
  }

  /**
   * Ends the open speech here (an item cut at maxUtteranceSeconds, a commit, a clear): the detector starts
   * afresh, so speech going on starts a new turn once it is heard again, never before this point. (A reset,
   * not sherpa-onnx's flush: after a flush, speech ending within the silence duration asks its buffer for
   * a negative length.)
   */
  cut(): void {
    this.#vad.reset()
    this.#origin += this.#fed
    this.#fed = 0
    this.#speaking = false
  }

  /** Starts afresh for another session whose audio reaches it from `origin` (turn-detector-pool.ts). */
  restart(origin: number): void {
    this.cut()
    this.#origin = origin
  }

  /** Pops finished segments (the session keeps its own audio); returns the last one's end. */
  #drain(): number | null {
    let end: number | null = null
    while (!this.#vad.isEmpty()) {
      const segment = this.#vad.front(true)
      end = segment.start + segment.samples.length
      this.#vad.pop()
    }
    return end
  }
}
