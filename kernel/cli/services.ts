/**
 * The services a command uses: the same app (container, services, plugins) the HTTP API runs on, built in
 * process from the user's config, never listening, and closed (engines, ffmpeg children, database) when the
 * command is done.
 */
import { loadConfig } from '../../config/load.ts'
import { buildApp, type DictumApp } from '../app.ts'
import { createEngineRunner } from '../engine-runner/index.ts'
import type { RunnerFactory } from '../registry.ts'
import type { CliIO } from './io.ts'
import { flagsOf } from './options.ts'

export async function withServices<T>(
  values: Record<string, unknown>,
  io: CliIO,
  run: (app: DictumApp) => Promise<T>,
): Promise<T> {
  const loaded = loadConfig({ flags: flagsOf(values), env: io.env, cwd: io.cwd })
  const guard = closingGuard()
  const app = await buildApp(loaded.config, {
    logger: false,
    configFile: loaded.file,
    runnerFactory: guard.factory,
  })
  try {
    return await run(app)
  } finally {
    guard.close()
    await app.close()
  }
}

/**
 * Engine runners created once the command is closing are closed at birth. A transcription whose audio fails
 * at once (a missing or undecodable file) leaves its engine acquisition running; when that was the last
 * file, the acquisition would otherwise start an engine process after the registry closed, and the command
 * would never exit.
 */
function closingGuard(): { factory: RunnerFactory; close(): void } {
  let closing = false
  return {
    factory: (options) => {
      const runner = createEngineRunner(options)
      if (closing) void runner.close()
      return runner
    },
    close: () => {
      closing = true
    },
  }
}
