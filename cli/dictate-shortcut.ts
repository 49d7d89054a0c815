/**
 * `dictum dictate --begin / --end / --toggle`: a dictation driven by a key binding (docs/desktop.md). The
 * process that begins records until another one ends it (or --max-seconds), then hands the text on; the one
 * that ends it waits for that and reports how it went, so a binding that runs `--end` on key release sees
 * the error. One recording at a time per user (dictate-lock.ts).
 */
import { CliError } from './cli-error.ts'
import { RecordingLock, STOP_SIGNAL } from './dictate-lock.ts'
import { type CliIO, EXIT } from './io.ts'

export type ShortcutMode = 'begin' | 'end' | 'toggle'

/** Longest `--end` waits for the recording to be transcribed and handed on. */
const END_WAIT_MS = 10 * 60_000

/** What `--toggle` does now: end the running recording, or begin one. */
export function resolveToggle(mode: ShortcutMode, env: NodeJS.ProcessEnv): 'begin' | 'end' {
  if (mode !== 'toggle') return mode
  return new RecordingLock(env).holder() === null ? 'begin' : 'end'
}

/** `--end`: stops the recording and reports its outcome (the text, or its error, with its exit status). */
export async function endRecording(io: CliIO): Promise<number> {
  const outcome = await new RecordingLock(io.env).stop(END_WAIT_MS)
  if (outcome.exitCode !== EXIT.ok) throw new CliError(outcome.message, outcome.exitCode)
  io.stdout.write(`${outcome.message}\n`)
  return EXIT.ok
}

/**
 * `--begin`: takes the lock (naming the holder if another recording runs), then runs the dictation, which
 * `stop` ends when `--end` signals; the outcome is left for `--end` and the lock freed, whatever happens.
 */
export async function beginRecording(
  io: CliIO,
  args: string[],
  stop: AbortController,
  run: () => Promise<{ code: number; text: string }>,
): Promise<number> {
  const lock = new RecordingLock(io.env)
  lock.acquire(args)
  // Installed at once: SIGUSR1's default action would kill the process before it delivers anything.
  const onStop = () => stop.abort()
  process.on(STOP_SIGNAL, onStop)
  try {
    const { code, text } = await run()
    lock.release({ exitCode: code as (typeof EXIT)[keyof typeof EXIT], message: text })
    return code
  } catch (err) {
    const exitCode = err instanceof CliError ? err.exitCode : EXIT.failure
    lock.release({ exitCode, message: (err as Error).message })
    throw err
  } finally {
    process.off(STOP_SIGNAL, onStop)
  }
}
