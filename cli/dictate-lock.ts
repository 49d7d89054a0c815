/**
 * One recording at a time per user, for `dictum dictate --begin/--end/--toggle` (a key binding starts a
 * recording in one process and stops it from another). The recorder holds a lock file under
 * `$XDG_RUNTIME_DIR/dictum/` naming its process; `--end` signals that process (SIGUSR1: stop recording, keep
 * what was said) and waits for its outcome, which the recorder leaves in a file beside the lock.
 *
 * A lock whose process is gone (killed, crashed) is stale: the next start takes it over. The lock is made
 * with an exclusive create, so two starts at once never both record.
 */
import {
  type FSWatcher,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  watch,
  writeFileSync,
} from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import path from 'node:path'
import { CliError, type ExitCode } from './cli-error.ts'
import { EXIT } from './io.ts'

/** The signal `--end` sends the recorder: stop recording and hand the text on. */
export const STOP_SIGNAL = 'SIGUSR1'

export interface LockOwner {
  pid: number
  /** ISO time the recording started. */
  startedAt: string
  /** The recorder's arguments, to say who holds the lock. */
  args: string[]
}

export interface Outcome {
  pid: number
  exitCode: ExitCode
  /** The text delivered, or the error. */
  message: string
}

/** `$XDG_RUNTIME_DIR/dictum` (private to the user, cleared at logout), else a per-user folder in /tmp. */
export function lockDir(env: NodeJS.ProcessEnv): string {
  if (env.XDG_RUNTIME_DIR) return path.join(env.XDG_RUNTIME_DIR, 'dictum')
  return path.join(tmpdir(), `dictum-${userInfo().uid}`)
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it runs, as another user (a reused pid): still not ours to take over, so it counts as running.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T
  } catch {
    return null
  }
}

export class RecordingLock {
  readonly #dir: string
  readonly #lock: string
  readonly #outcome: string

  constructor(env: NodeJS.ProcessEnv) {
    this.#dir = lockDir(env)
    this.#lock = path.join(this.#dir, 'dictate.lock')
    this.#outcome = path.join(this.#dir, 'dictate.outcome')
  }

  /** The process recording now, or null (no lock, or a stale one). */
  holder(): LockOwner | null {
    const owner = readJson<LockOwner>(this.#lock)
    if (owner === null) {
      // A lock being written (an instant) or unreadable: only a file that exists counts.
      return this.#exists() ? { pid: 0, startedAt: '', args: [] } : null
    }
    return isRunning(owner.pid) ? owner : null
  }

  /**
   * Takes the lock for this process, taking over a stale one. Throws (exit 3) naming the holder when
   * another recording runs.
   */
  acquire(args: string[]): void {
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 })
    const mine: LockOwner = { pid: process.pid, startedAt: new Date().toISOString(), args }
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        writeFileSync(this.#lock, JSON.stringify(mine), { flag: 'wx', mode: 0o600 })
        rmSync(this.#outcome, { force: true })
        return
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      }
      const owner = readJson<LockOwner>(this.#lock)
      if (owner !== null && isRunning(owner.pid)) throw busy(owner, this.#lock)
      if (owner === null && this.#youngerThan(2000)) throw busy(null, this.#lock)
      // Stale: moved aside first, so of two starts that both saw it stale only one removes it.
      const aside = `${this.#lock}.stale-${process.pid}`
      try {
        renameSync(this.#lock, aside)
        rmSync(aside, { force: true })
      } catch {}
    }
    throw busy(readJson<LockOwner>(this.#lock), this.#lock)
  }

  /** Leaves the outcome for `--end` and frees the lock (only this process's own). */
  release(outcome: { exitCode: ExitCode; message: string }): void {
    const owner = readJson<LockOwner>(this.#lock)
    if (owner?.pid !== process.pid) return
    writeFileSync(this.#outcome, JSON.stringify({ pid: process.pid, ...outcome } satisfies Outcome), {
      mode: 0o600,
    })
    rmSync(this.#lock, { force: true })
  }

  /**
   * Stops the recording (`--end`) and waits up to `waitMs` for its outcome. Throws (exit 1) when nothing
   * is recording.
   */
  async stop(waitMs: number): Promise<Outcome> {
    const owner = this.holder()
    if (owner === null || owner.pid === 0)
      throw new CliError('dictum dictate --end: no dictation is recording (start one with --begin).')
    // The recorder removes its lock when it is done: watching the folder wakes us at once (a key release
    // waits for the text); the poll stays for a recorder that dies without removing it, and for file
    // systems that do not report changes.
    const changed = watchFolder(path.dirname(this.#lock))
    try {
      process.kill(owner.pid, STOP_SIGNAL)
      const deadline = Date.now() + waitMs
      for (let wait = 20; Date.now() < deadline; wait = Math.min(wait * 2, 250)) {
        if (!isRunning(owner.pid) || readJson<LockOwner>(this.#lock)?.pid !== owner.pid) {
          const outcome = readJson<Outcome>(this.#outcome)
          if (outcome?.pid === owner.pid) return outcome
          return { pid: owner.pid, exitCode: EXIT.failure, message: 'the recording ended without a result.' }
        }
        await changed.next(wait)
      }
    } finally {
      changed.close()
    }
    throw new CliError(
      `the recording (pid ${owner.pid}) was told to stop but has not finished after ${Math.round(waitMs / 1000)} s.`,
    )
  }

  #exists(): boolean {
    try {
      statSync(this.#lock)
      return true
    } catch {
      return false
    }
  }

  #youngerThan(ms: number): boolean {
    try {
      return Date.now() - statSync(this.#lock).mtimeMs < ms
    } catch {
      return false
    }
  }
}

function busy(owner: LockOwner | null, lock: string): CliError {
  const who =
    owner === null
      ? `another dictation is starting (${lock})`
      : `a dictation is already recording: pid ${owner.pid}, since ${owner.startedAt} (dictum dictate ${owner.args.join(' ')})`
  return new CliError(`${who}. Stop it with: dictum dictate --end`, EXIT.unavailable)
}

/** Waits for a change in a folder, or `ms` at most (`next`); `close` stops watching. */
function watchFolder(dir: string): { next: (ms: number) => Promise<void>; close: () => void } {
  let wake: (() => void) | null = null
  let watcher: FSWatcher | null = null
  try {
    watcher = watch(dir, () => wake?.())
    watcher.on('error', () => {})
  } catch {} // no watching here: the poll alone
  return {
    next: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms)
        function done() {
          clearTimeout(timer)
          wake = null
          resolve()
        }
        wake = done
      }),
    close: () => watcher?.close(),
  }
}
