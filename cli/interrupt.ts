/**
 * Ctrl-C while a command runs: the command decides what each press means (stop recording, then abort).
 * The handler is removed when the command ends, so the process exits normally afterwards.
 */
export interface Interrupts {
  /** Presses so far. */
  readonly count: number
  close(): void
}

export function onInterrupt(handler: (press: number) => void): Interrupts {
  let count = 0
  const listener = () => {
    count++
    handler(count)
  }
  process.on('SIGINT', listener)
  return {
    get count() {
      return count
    },
    close: () => {
      process.off('SIGINT', listener)
    },
  }
}

/**
 * `promise`, or the abort as a rejection as soon as `signal` fires: a native engine finishes the piece it is
 * on before it looks at the signal, and Ctrl-C should not wait for that (closing the app stops the engine).
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
