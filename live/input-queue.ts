/**
 * A live session's input, processed in slices (issue 28 item 2): converting, resampling and running the VAD
 * over appended audio costs ~30 ms a second of audio on the 2-core test machine, so a 1 MB append (16 s)
 * held the event loop for half a second and a flood of them stalled every route for seconds. Appended audio
 * waits here and at most {@link SLICE_SECONDS} of it is processed per turn of the event loop; calls that
 * must see all audio before them (a commit, a clear, an update, the end) wait behind it in order.
 */
import { setImmediate as nextTurn } from 'node:timers'

/** Audio processed per turn of the event loop, at most (a few milliseconds of work). */
export const SLICE_SECONDS = 0.2

/** Work may finish later (the turn detector answers from its thread): the next step waits for it. */
type Work = void | Promise<void>
type Step = { audio: Uint8Array } | { run: () => Work }

export class InputQueue {
  readonly #sliceBytes: number
  readonly #process: (pcm16: Uint8Array) => Work
  readonly #onError: (error: unknown) => void
  readonly #steps: Step[] = []
  /** Bytes of audio waiting. */
  #pending = 0
  /** A slice is scheduled or running (it may be waiting for work to finish). */
  #scheduled = false
  #stopped = false
  #idle: Array<() => void> = []

  /**
   * `process` takes whole 16-bit samples at `inputRate`, in order; `onError` gets what a slice threw
   * (the queue is stopped then: it runs outside any caller that could catch it).
   */
  constructor(inputRate: number, process: (pcm16: Uint8Array) => Work, onError: (error: unknown) => void) {
    this.#sliceBytes = Math.max(2, Math.round(inputRate * SLICE_SECONDS) * 2)
    this.#process = process
    this.#onError = onError
  }

  /** Bytes of audio appended and not processed yet. */
  get pendingBytes(): number {
    return this.#pending
  }

  /** Queues audio (an even number of bytes); it is processed from the next turn of the event loop on. */
  audio(pcm16: Uint8Array): void {
    if (this.#stopped || pcm16.length === 0) return
    this.#steps.push({ audio: pcm16 })
    this.#pending += pcm16.length
    this.#schedule()
  }

  /** Audio or calls wait, or a slice is under way (perhaps waiting for the turn detector's thread). */
  get busy(): boolean {
    return !this.#stopped && (this.#scheduled || this.#steps.length > 0)
  }

  /** True once stopped: work that was waiting should not go on. */
  get stopped(): boolean {
    return this.#stopped
  }

  /**
   * Runs `run` once the audio queued before it is processed: now when nothing waits or runs. What comes
   * after waits for what it returns.
   */
  afterAudio(run: () => Work): void {
    if (this.#stopped) return
    if (this.#steps.length > 0 || this.#scheduled) {
      this.#steps.push({ run })
      return
    }
    let work: Work
    try {
      work = run()
    } catch (error) {
      this.#failed(error)
      return
    }
    if (work) {
      this.#scheduled = true
      this.#track(work)
    }
  }

  /** Resolves once everything queued has run (at once when nothing waits, or once stopped). */
  drained(): Promise<void> {
    if ((this.#steps.length === 0 && !this.#scheduled) || this.#stopped) return Promise.resolve()
    return new Promise((resolve) => this.#idle.push(resolve))
  }

  /** Drops what waits; nothing more runs. */
  stop(): void {
    this.#stopped = true
    this.#steps.length = 0
    this.#pending = 0
    this.#wake()
  }

  #schedule(): void {
    if (this.#scheduled || this.#stopped) return
    this.#scheduled = true
    nextTurn(() => this.#track(this.#slice()))
  }

  /** Work under way (a slice, or a call that finishes later): what waits goes on once it is done. */
  #track(work: Promise<void>): void {
    work.then(
      () => {
        this.#scheduled = false
        if (this.#steps.length > 0) this.#schedule()
        else this.#wake()
      },
      (error: unknown) => {
        this.#scheduled = false
        this.#failed(error)
      },
    )
  }

  /** Work threw: the queue stops (it runs outside any caller that could catch it). */
  #failed(error: unknown): void {
    this.stop()
    this.#onError(error)
  }

  /** One turn's work: up to a slice of audio, and the calls queued behind it. */
  async #slice(): Promise<void> {
    let budget = this.#sliceBytes
    while (!this.#stopped && this.#steps.length > 0) {
      const step = this.#steps[0] as Step
      if ('run' in step) {
        this.#steps.shift()
        await step.run()
        continue
      }
      if (budget <= 0) break
      const take = Math.min(budget, step.audio.length)
      const part = step.audio.subarray(0, take)
      if (take === step.audio.length) this.#steps.shift()
      else step.audio = step.audio.subarray(take)
      this.#pending -= take
      budget -= take
      await this.#process(part)
    }
  }

  #wake(): void {
    for (const resolve of this.#idle.splice(0)) resolve()
  }
}
