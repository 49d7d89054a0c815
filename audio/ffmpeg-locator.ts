/**
 * Finds the ffmpeg binary: config `audio.ffmpegPath`, env `FFMPEG_PATH`, the optional `ffmpeg-static`
 * package, then `ffmpeg` on PATH. A configured value that does not lead to an executable is logged and
 * skipped, so a typo degrades to the next source instead of disabling every non-WAV format.
 */
import { constants } from 'node:fs'
import { access, stat } from 'node:fs/promises'
import path from 'node:path'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import type { FfmpegLocation } from './types.ts'

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const info = await stat(file)
    if (!info.isFile()) return false
    await access(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Resolves a command name on `env.PATH`; empty entries (meaning the working directory) are ignored. */
async function searchPath(command: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const names = process.platform === 'win32' ? [`${command}.exe`, command] : [command]
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue
    for (const name of names) {
      const candidate = path.join(dir, name)
      if (await isExecutableFile(candidate)) return candidate
    }
  }
  return undefined
}

/** A configured value is a path when it contains a separator, otherwise a command name for PATH. */
async function resolveConfigured(value: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (!/[\\/]/.test(value)) return searchPath(value, env)
  const resolved = path.resolve(value)
  return (await isExecutableFile(resolved)) ? resolved : undefined
}

/** The path exported by `ffmpeg-static`, when that optional package is installed and has its binary. */
async function ffmpegStatic(): Promise<string | undefined> {
  const name = 'ffmpeg-static'
  try {
    const module = (await import(name)) as { default?: unknown }
    const binary = module.default
    return typeof binary === 'string' && (await isExecutableFile(binary)) ? binary : undefined
  } catch {
    return undefined
  }
}

export interface LocateOptions {
  configured: string | undefined
  env: NodeJS.ProcessEnv
  logger: PluginLogger
}

export async function locateFfmpeg({
  configured,
  env,
  logger,
}: LocateOptions): Promise<FfmpegLocation | null> {
  const candidates = [
    { source: 'config', value: configured, what: 'audio.ffmpegPath' },
    { source: 'env', value: env.FFMPEG_PATH, what: 'FFMPEG_PATH' },
  ] as const
  for (const { source, value, what } of candidates) {
    if (!value) continue
    const found = await resolveConfigured(value, env)
    if (found) return { path: found, source }
    logger.warn({ [what]: value }, `${what} does not point to an executable ffmpeg; trying the next source`)
  }
  const bundled = await ffmpegStatic()
  if (bundled) return { path: bundled, source: 'ffmpeg-static' }
  const onPath = await searchPath('ffmpeg', env)
  return onPath ? { path: onPath, source: 'path' } : null
}
