/**
 * The services a command uses: the same app (container, services, plugins) the HTTP API runs on, built in
 * process from the user's config, never listening, and closed (engines, ffmpeg children, database) when the
 * command is done.
 */
import { loadConfig } from '../../config/load.ts'
import { buildApp, type DictumApp } from '../app.ts'
import type { CliIO } from './io.ts'
import { flagsOf } from './options.ts'

export async function withServices<T>(
  values: Record<string, unknown>,
  io: CliIO,
  run: (app: DictumApp) => Promise<T>,
): Promise<T> {
  const loaded = loadConfig({ flags: flagsOf(values), env: io.env, cwd: io.cwd })
  const app = await buildApp(loaded.config, { logger: false, configFile: loaded.file })
  try {
    return await run(app)
  } finally {
    await app.close()
  }
}
