/**
 * The services a command uses: the same app (container, services, plugins) the HTTP API runs on, built in
 * process from the user's config, never listening, and closed (engines, ffmpeg children, database) when the
 * command is done.
 */

import { type CheckedConfig, loadCheckedConfig } from '../kernel/config-check.ts'
import { buildApp, type DictumApp } from '../server/app.ts'
import { ConfigSchema } from '../server/config-schema.ts'
import type { CliIO } from './io.ts'
import { flagsOf } from './options.ts'

/** The config a command runs with (flags, environment, config file), plugin options checked with it. */
export function loadCliConfig(values: Record<string, unknown>, io: CliIO): Promise<CheckedConfig> {
  return loadCheckedConfig(ConfigSchema, { flags: flagsOf(values), env: io.env, cwd: io.cwd })
}

export async function withServices<T>(
  values: Record<string, unknown>,
  io: CliIO,
  run: (app: DictumApp) => Promise<T>,
  checked?: CheckedConfig,
): Promise<T> {
  const { loaded, discovery } = checked ?? (await loadCliConfig(values, io))
  const app = await buildApp(loaded.config, {
    logger: false,
    configFile: loaded.file,
    discovery,
    ...(io.runnerFactory ? { runnerFactory: io.runnerFactory } : {}),
  })
  try {
    return await run(app)
  } finally {
    await app.close()
  }
}
