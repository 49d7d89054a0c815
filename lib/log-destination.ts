/**
 * Where the service's log lines go: standard output, written synchronously, line by line. A reader that went
 * away (npx stopped, the `| tee` ended: EPIPE) or a broken descriptor turns the log off instead of failing
 * the service, and nothing is left to flush at exit, so SIGTERM always ends the process. (pino's default
 * destination retries a failed flush at exit every 100 ms for ever, so such a process never exited.) A full
 * pipe (EAGAIN, a reader that is slow) is waited on briefly; past that, the line is dropped.
 */
import { writeSync } from 'node:fs'
import { createRequire } from 'node:module'

/** How long one line may wait on a full pipe before it is dropped. */
const FULL_PIPE_WAIT_MS = 1000
const RETRY_MS = 10

export interface LogDestination {
  write(line: string): boolean
  /** False once the reader is gone: later lines are dropped. */
  readonly open: boolean
}

export function logDestination(fd = 1): LogDestination {
  let open = true
  const pause = new Int32Array(new SharedArrayBuffer(4))
  return {
    get open() {
      return open
    },
    write(line: string): boolean {
      if (!open) return true
      let rest = Buffer.from(line)
      let waited = 0
      while (rest.length > 0) {
        try {
          rest = rest.subarray(writeSync(fd, rest))
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code
          if ((code === 'EAGAIN' || code === 'EBUSY') && waited < FULL_PIPE_WAIT_MS) {
            Atomics.wait(pause, 0, 0, RETRY_MS)
            waited += RETRY_MS
            continue
          }
          if (code !== 'EAGAIN' && code !== 'EBUSY') open = false
          return true
        }
      }
      return true
    },
  }
}

/**
 * The service's log stream: readable lines (pino-pretty: time, level, message, fields) when standard output
 * is a terminal, one JSON object per line otherwise (for journald, files and log shippers). Both go through
 * the same destination, so a closed output never stops the service.
 */
export function logStream(isTTY = Boolean(process.stdout.isTTY), fd = 1): LogDestination {
  const destination = logDestination(fd)
  if (!isTTY) return destination
  // Loaded only for a terminal: commands and services writing JSON never pay for it.
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty')
  const pretty = prettyFactory({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
  return {
    get open() {
      return destination.open
    },
    write: (line: string) => destination.write(pretty(line)),
  }
}
