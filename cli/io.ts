import type { RunnerFactory } from '../kernel/registry.ts'

/** What a CLI command writes to, so tests and the real process share one shape. */
export interface CliIO {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
  /** True when stdout is a terminal (progress bars, colours). */
  isTTY: boolean
  /** True when stderr is a terminal: progress and status lines are drawn there. */
  stderrIsTTY?: boolean
  /** Read by commands that accept `-` as a file (e.g. `dictum dictionary import -`). */
  stdin?: NodeJS.ReadableStream
  env: NodeJS.ProcessEnv
  cwd: string
  /**
   * How the commands' engines run (tests: the built-in engines in the test process, as test/helpers/build.ts
   * runs them); default: in engine host processes, as each engine declares (kernel/engine-runner).
   */
  runnerFactory?: RunnerFactory
}

export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    isTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  }
}

/** Exit codes scripts can rely on (130: stopped by Ctrl-C, as shells report SIGINT). */
export const EXIT = { ok: 0, failure: 1, usage: 2, unavailable: 3, interrupted: 130 } as const
