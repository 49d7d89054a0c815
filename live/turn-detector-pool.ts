/**
 * Silero turn detectors kept for the next live session (the service's, one per app). Each detector holds a
 * native ONNX session and its sample buffer outside V8's heap (~18 MB measured), freed only when V8 collects
 * its wrapper, which native memory alone never prompts: 60 sessions opened and closed one after another took
 * the process from 200 to 530 MB that it kept. A closed session's detector is reset and given to the next
 * session with the same settings instead, so the process holds about as many as sessions are open at once.
 */
import { TurnDetector, type TurnDetectorOptions } from './turn-detector.ts'

/** Idle detectors kept per app at most (realtime.maxSessions' default): more are dropped. */
export const MAX_IDLE_TURN_DETECTORS = 8

export class TurnDetectorPool {
  /** Idle detectors by their native settings (a detector's threshold and durations are fixed at creation). */
  readonly #idle = new Map<string, TurnDetector[]>()
  #idleCount = 0
  /** Detectors created so far (for tests and diagnostics). */
  created = 0

  /** A detector with these settings, fed from `options.origin` on: an idle one reset, else a new one. */
  acquire(options: TurnDetectorOptions): TurnDetector {
    const kept = this.#idle.get(keyOf(options))?.pop()
    if (kept) {
      this.#idleCount--
      kept.restart(options.origin)
      return kept
    }
    this.created++
    return new TurnDetector(options)
  }

  /** A session is done with its detector. */
  release(detector: TurnDetector, options: TurnDetectorOptions): void {
    if (this.#idleCount >= MAX_IDLE_TURN_DETECTORS) return
    const key = keyOf(options)
    const list = this.#idle.get(key) ?? []
    if (!this.#idle.has(key)) this.#idle.set(key, list)
    list.push(detector)
    this.#idleCount++
  }

  get idle(): number {
    return this.#idleCount
  }

  /** Drops every idle detector (the app is closing). */
  clear(): void {
    this.#idle.clear()
    this.#idleCount = 0
  }
}

function keyOf(o: TurnDetectorOptions): string {
  return JSON.stringify([
    o.model,
    o.threshold,
    o.silenceDurationMs,
    o.minSpeechSeconds,
    o.maxUtteranceSeconds,
  ])
}
