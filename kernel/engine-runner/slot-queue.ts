import { errors } from '../../errors/catalogue.ts'

/**
 * `low`: batch work (transcription jobs), served after every `normal` waiter, so that a dictation arriving
 * while jobs wait for the engine runs next.
 */
export type SlotPriority = 'normal' | 'low'

interface Waiter {
  priority: SlotPriority
  grant: (release: () => void) => void
  reject: (error: unknown) => void
  signal: AbortSignal | undefined
  onAbort: () => void
}

/**
 * A counting semaphore: at most `size` holders at once; later callers wait in arrival order, `normal` ones
 * before `low` ones. A waiter
 * whose signal aborts leaves the queue at once with the signal's reason.
 */
export class SlotQueue {
  readonly #size: number
  readonly #engineId: string
  readonly #waiting: Waiter[] = []
  #active = 0
  #closed = false

  constructor(size: number, engineId: string) {
    this.#size = Math.max(1, Math.floor(size))
    this.#engineId = engineId
  }

  get size(): number {
    return this.#size
  }

  get active(): number {
    return this.#active
  }

  get waiting(): number {
    return this.#waiting.length
  }

  /** Resolves with a release function once a slot is free. Call the release exactly once. */
  acquire(signal?: AbortSignal, priority: SlotPriority = 'normal'): Promise<() => void> {
    if (this.#closed) return Promise.reject(closedError(this.#engineId))
    if (signal?.aborted) return Promise.reject(abortReason(signal))
    if (this.#active < this.#size && this.#waiting.length === 0) {
      this.#active++
      return Promise.resolve(this.#releaser())
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        priority,
        grant: resolve,
        reject,
        signal,
        onAbort: () => {
          this.#remove(waiter)
          reject(abortReason(signal as AbortSignal))
        },
      }
      signal?.addEventListener('abort', waiter.onAbort, { once: true })
      // A normal waiter goes ahead of the low ones; among equals, arrival order.
      const firstLow = priority === 'normal' ? this.#waiting.findIndex((w) => w.priority === 'low') : -1
      if (firstLow >= 0) this.#waiting.splice(firstLow, 0, waiter)
      else this.#waiting.push(waiter)
    })
  }

  /** Rejects every waiter; later acquires fail. Holders keep their slots until they release. */
  close(): void {
    this.#closed = true
    for (const waiter of this.#waiting.splice(0)) {
      waiter.signal?.removeEventListener('abort', waiter.onAbort)
      waiter.reject(closedError(this.#engineId))
    }
  }

  #releaser(): () => void {
    let released = false
    return () => {
      if (released) return
      released = true
      this.#active--
      this.#grantNext()
    }
  }

  #grantNext(): void {
    const next = this.#waiting.shift()
    if (!next) return
    next.signal?.removeEventListener('abort', next.onAbort)
    this.#active++
    next.grant(this.#releaser())
  }

  #remove(waiter: Waiter): void {
    const index = this.#waiting.indexOf(waiter)
    if (index >= 0) this.#waiting.splice(index, 1)
  }
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError')
}

export function closedError(engineId: string) {
  return errors.ENGINE_UNAVAILABLE(`${engineId}: the engine was closed.`)
}
