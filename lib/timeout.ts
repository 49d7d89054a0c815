/**
 * The one way dictum puts a time limit on work (an engine call, a provider request, an outbound HTTP
 * exchange): a signal that aborts when the time is up or when the caller's own signal aborts, and a race that
 * stops waiting for work the moment that signal aborts (for work that does not honour its signal).
 */

export interface TimeLimit {
  /** Aborts when the time is up (reason: the timeout's) or when the caller's signal aborts (its reason). */
  readonly signal: AbortSignal
  /** True once the time ran out; false when the caller aborted first or the work finished in time. */
  readonly expired: boolean
  /** Settles like `work`, or rejects with the signal's reason as soon as it aborts. */
  race<T>(work: Promise<T>): Promise<T>
  /** Stops the clock and lets go of the caller's signal: call it once the work is done (in a `finally`). */
  clear(): void
}

export interface TimeLimitOptions {
  /** The caller's signal: its abort aborts the limit's signal too, with the same reason. */
  signal?: AbortSignal | undefined
  /** The abort reason when the time is up; a DOMException named TimeoutError by default. */
  reason?: () => unknown
}

export function timeLimit(ms: number, options: TimeLimitOptions = {}): TimeLimit {
  const controller = new AbortController()
  const parent = options.signal
  let expired = false
  // A ref'd timer: AbortSignal.timeout's is unref'd and would not keep a CLI run alive until it fires.
  const timer = setTimeout(() => {
    if (controller.signal.aborted) return
    expired = true
    controller.abort(options.reason ? options.reason() : timeoutReason(ms))
  }, ms)
  const onAbort = () => controller.abort(parent?.reason)
  if (parent?.aborted) onAbort()
  else parent?.addEventListener('abort', onAbort, { once: true })
  return {
    signal: controller.signal,
    get expired() {
      return expired
    },
    race: (work) => raceAbort(work, controller.signal),
    clear() {
      clearTimeout(timer)
      parent?.removeEventListener('abort', onAbort)
    },
  }
}

/** Settles like `work`, or rejects with the signal's reason as soon as it aborts. */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {})
    return Promise.reject(signal.reason)
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

function timeoutReason(ms: number): DOMException {
  return new DOMException(`timed out after ${ms} ms`, 'TimeoutError')
}
