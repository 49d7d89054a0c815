/**
 * Shares one running task per key between concurrent callers: each caller gets the task's progress and result,
 * may leave early with its own AbortSignal, and the task itself is aborted only when every caller has left.
 */

interface Flight<T, P> {
  promise: Promise<T>
  listeners: Set<(progress: P) => void>
  /** The last progress reported, for callers that join late. */
  last: P | undefined
  controller: AbortController
  callers: number
}

export interface JoinOptions<P> {
  onProgress?: ((progress: P) => void) | undefined
  signal?: AbortSignal | undefined
}

export type FlightTask<T, P> = (signal: AbortSignal, emit: (progress: P) => void) => Promise<T>

export class SingleFlight<T, P> {
  readonly #flights = new Map<string, Flight<T, P>>()

  has(key: string): boolean {
    return this.#flights.has(key)
  }

  /** Joins the flight for `key`, starting it with `task` when none is running. */
  run(key: string, task: FlightTask<T, P>, options: JoinOptions<P> = {}): Promise<T> {
    const flight = this.#flights.get(key)
    if (flight?.controller.signal.aborted) {
      // Everyone left that one; it is still cleaning up. Start afresh once it is done.
      const settled = flight.promise.then(
        () => undefined,
        () => undefined,
      )
      return settled.then(() => this.run(key, task, options))
    }
    return this.#join(flight ?? this.#start(key, task), options)
  }

  /** Aborts every running task and waits for them to settle. */
  async close(): Promise<void> {
    const running = [...this.#flights.values()]
    for (const flight of running) flight.controller.abort(new Error('closing'))
    await Promise.allSettled(running.map((flight) => flight.promise))
  }

  #start(key: string, task: FlightTask<T, P>): Flight<T, P> {
    const controller = new AbortController()
    const flight: Flight<T, P> = {
      promise: Promise.resolve() as Promise<T>,
      listeners: new Set(),
      controller,
      callers: 0,
      last: undefined,
    }
    const emit = (progress: P) => {
      flight.last = progress
      for (const listener of flight.listeners) listener(progress)
    }
    flight.promise = task(controller.signal, emit).finally(() => this.#flights.delete(key))
    // Callers that left early no longer listen; the rejection must not surface as unhandled.
    flight.promise.catch(() => {})
    this.#flights.set(key, flight)
    return flight
  }

  #join(flight: Flight<T, P>, { onProgress, signal }: JoinOptions<P>): Promise<T> {
    flight.callers += 1
    if (onProgress) {
      flight.listeners.add(onProgress)
      if (flight.last !== undefined) onProgress(flight.last)
    }
    return new Promise<T>((resolve, reject) => {
      let left = false
      const leave = () => {
        if (left) return
        left = true
        signal?.removeEventListener('abort', onAbort)
        if (onProgress) flight.listeners.delete(onProgress)
        flight.callers -= 1
      }
      const onAbort = () => {
        leave()
        const reason = signal?.reason ?? new Error('aborted')
        if (flight.callers > 0) {
          reject(reason)
          return
        }
        // The last caller waits for the task to clean up (lock, staging), so nothing is left half-done.
        flight.controller.abort(reason)
        flight.promise.then(
          () => reject(reason),
          () => reject(reason),
        )
      }
      if (signal?.aborted) {
        onAbort()
        return
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      flight.promise.then(
        (value) => {
          leave()
          resolve(value)
        },
        (error: unknown) => {
          leave()
          reject(error)
        },
      )
    })
  }
}
