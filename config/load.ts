/**
 * Builds the one frozen config: defaults < file < env < flags (docs/api-decisions.md). Every invalid key is reported
 * at once, each with its path, in one CONFIG_INVALID error.
 */
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import type { TObject } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { errors } from '../errors/catalogue.ts'
import type { DictumConfig } from './schema.ts'

/** Command-line flags that override config (docs/api-decisions.md). */
export interface ConfigFlags {
  config?: string
  host?: string
  port?: string | number
  dataDir?: string
}

export interface LoadedConfig {
  config: Readonly<DictumConfig>
  /** The config file read, or null when none exists (defaults apply). */
  file: string | null
}

export interface LoadOptions {
  flags?: ConfigFlags
  env?: NodeJS.ProcessEnv
  /** Working directory for relative flag paths. */
  cwd?: string
}

/** The config file path: --config, else DICTUM_CONFIG, else $XDG_CONFIG_HOME/dictum/config.json. */
export function configFilePath(
  flags: ConfigFlags,
  env: NodeJS.ProcessEnv,
  cwd: string,
): { path: string; explicit: boolean } {
  const given = flags.config ?? env.DICTUM_CONFIG
  if (given) return { path: path.resolve(cwd, given), explicit: true }
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || homedir(), '.config')
  return { path: path.join(base, 'dictum', 'config.json'), explicit: false }
}

export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_DATA_HOME || path.join(env.HOME || homedir(), '.local', 'share')
  return path.join(base, 'dictum')
}

/** Reads and parses the config file; a missing file is fine unless it was named explicitly. */
export function readConfigFile(file: string, explicit: boolean): Record<string, unknown> | null {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' && !explicit) return null
    throw errors.CONFIG_UNREADABLE(`${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (err) {
    throw errors.CONFIG_UNREADABLE(`${file}: invalid JSON (${(err as Error).message})`)
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw errors.CONFIG_UNREADABLE(`${file}: the top level must be a JSON object`)
  }
  return parsed as Record<string, unknown>
}

/** A config with defaults applied and every problem found, before anything is thrown. */
export interface DraftConfig {
  value: Record<string, unknown>
  problems: string[]
  file: string | null
}

/**
 * Applies the defaults to a raw config object and lists every invalid key (`path: message`). `schema` is the
 * composed config schema (server/config-schema.ts): the sections are declared by the folders that own them.
 */
export function validateConfig(
  schema: TObject,
  raw: Record<string, unknown>,
  problems: string[] = [],
): DraftConfig['value'] {
  const withDefaults = Value.Default(schema, structuredClone(raw)) as Record<string, unknown>
  for (const error of Value.Errors(schema, withDefaults)) {
    const where = error.path === '' ? '(top level)' : error.path.slice(1).replaceAll('/', '.')
    // A union's own message ("Expected union value") says nothing: such a key may carry a better one.
    const message = (error.schema as { errorMessage?: string }).errorMessage ?? error.message
    problems.push(`${where}: ${message}`)
  }
  return withDefaults
}

/** The one error for every problem of a config (core keys and plugin options alike). */
export function configInvalid(problems: readonly string[]): Error {
  return errors.CONFIG_INVALID(problems.map((p) => `  - ${p}`).join('\n'))
}

/** Validates a raw config object (defaults applied) and returns it frozen, or throws with every problem. */
export function resolveConfig(
  schema: TObject,
  raw: Record<string, unknown>,
  problems: string[] = [],
): Readonly<DictumConfig> {
  const value = validateConfig(schema, raw, problems)
  if (problems.length > 0) throw configInvalid(problems)
  return freezeConfig(value)
}

export function freezeConfig(value: Record<string, unknown>): Readonly<DictumConfig> {
  return deepFreeze(value as unknown as DictumConfig)
}

/** Reads file, env and flags into a draft: throws CONFIG_UNREADABLE, but returns invalid keys as problems. */
export function draftConfig(schema: TObject, options: LoadOptions = {}): DraftConfig {
  const flags = options.flags ?? {}
  const env = options.env ?? process.env
  const cwd = options.cwd ?? process.cwd()
  const where = configFilePath(flags, env, cwd)
  const fromFile = readConfigFile(where.path, where.explicit)
  const file = fromFile === null ? null : where.path
  const raw = applyOverrides(fromFile ?? {}, file, flags, env, cwd)
  return { value: validateConfig(schema, raw.value, raw.problems), problems: raw.problems, file }
}

/**
 * Loads the config from file, env and flags. Throws CONFIG_UNREADABLE or CONFIG_INVALID. (The service and
 * the CLI load through kernel/config-check.ts, which adds the plugins' options to the same one error.)
 */
export function loadConfig(schema: TObject, options: LoadOptions = {}): LoadedConfig {
  const draft = draftConfig(schema, options)
  if (draft.problems.length > 0) throw configInvalid(draft.problems)
  return { config: freezeConfig(draft.value), file: draft.file }
}

interface Overridden {
  value: Record<string, unknown>
  problems: string[]
}

function applyOverrides(
  fromFile: Record<string, unknown>,
  file: string | null,
  flags: ConfigFlags,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Overridden {
  const value = structuredClone(fromFile)
  const problems: string[] = []
  const baseDir = file ? path.dirname(file) : cwd
  if (!isObject(value.api)) value.api = {}
  const api = value.api as Record<string, unknown>
  if (typeof value.dataDir === 'string') value.dataDir = path.resolve(baseDir, value.dataDir)
  if (Array.isArray(value.plugins)) {
    value.plugins = value.plugins.map((p) =>
      typeof p === 'string' && isPathLike(p) ? path.resolve(baseDir, p) : p,
    )
  }
  const host = flags.host ?? env.DICTUM_HOST
  if (host !== undefined) api.host = host
  const port = flags.port ?? env.DICTUM_PORT
  if (port !== undefined) {
    const n = typeof port === 'number' ? port : /^\d+$/.test(port.trim()) ? Number(port) : Number.NaN
    if (Number.isInteger(n)) api.port = n
    else
      problems.push(
        `api.port: ${flags.port !== undefined ? '--port' : 'DICTUM_PORT'} must be an integer, got "${port}"`,
      )
  }
  const dataDir = flags.dataDir ?? env.DICTUM_DATA_DIR
  if (dataDir !== undefined) value.dataDir = path.resolve(cwd, dataDir)
  if (value.dataDir === undefined) value.dataDir = defaultDataDir(env)
  return { value, problems }
}

function isPathLike(specifier: string): boolean {
  return specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('~')
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}
