/** What a CLI command writes to, so tests and the real process share one shape. */
export interface CliIO {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
  /** True when stdout is a terminal (progress bars, colours). */
  isTTY: boolean
  env: NodeJS.ProcessEnv
  cwd: string
}

export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    isTTY: Boolean(process.stdout.isTTY),
    env: process.env,
    cwd: process.cwd(),
  }
}

/** Exit codes scripts can rely on. */
export const EXIT = { ok: 0, failure: 1, usage: 2, unavailable: 3 } as const
