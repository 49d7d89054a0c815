/** A failure a command reports in one line on stderr, with the exit code scripts see. */
import { EXIT } from './io.ts'

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

export class CliError extends Error {
  readonly exitCode: ExitCode

  constructor(message: string, exitCode: ExitCode = EXIT.failure) {
    super(message)
    this.name = 'CliError'
    this.exitCode = exitCode
  }
}

/** Wrong arguments: exit 2, like an unknown option. */
export function usageError(message: string): CliError {
  return new CliError(message, EXIT.usage)
}
