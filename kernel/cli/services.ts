/**
 * The services a command uses: the same app (container, services, plugins) the HTTP API runs on, built in
 * process from the user's config, never listening, and closed (engines, ffmpeg children, database) when the
 * command is done.
 */
import { type LoadedConfig, loadConfig } from '../../config/load.ts'
import { buildApp, type DictumApp } from '../app.ts'
import type { CliIO } from './io.ts'
import { flagsOf } from './options.ts'

/** The config a command runs with: its flags, the environment, the config file. */
export function loadCliConfig(values: Record<string, unknown>, io: CliIO): LoadedConfig {
  return loadConfig({ flags: flagsOf(values), env: io.env, cwd: io.cwd })
}

export async function withServices<T>(
  values: Record<string, unknown>,
  io: CliIO,
  run: (app: DictumApp) => Promise<T>,
  loaded: LoadedConfig = loadCliConfig(values, io),
): Promise<T> {
  const app = await buildApp(loaded.config, { logger: false, configFile: loaded.file })
  try {
    return await run(app)
  } finally {
    await app.close()
  }
}
