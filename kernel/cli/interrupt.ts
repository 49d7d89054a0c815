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
