/**
 * The settings a page may read and change (issue 14): the active speech engine, the AI provider, history on
 * or off. A change is checked, written to the config file (config/write.ts: the user's other keys and
 * formatting kept; the file created at its default location when there is none) and then applied live
 * through the config store, as an edit of the file would be. Nothing else of the config can be changed here:
 * a page must never reach `api.token` or `api.allowedOrigins`.
 */

import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import type { TObject } from '@sinclair/typebox'
import { resolveConfig, validateConfig } from '../config/load.ts'
import type { DictumConfig } from '../config/schema.ts'
import { type ConfigChange, readConfigEdit, writeConfigEdit } from '../config/write.ts'
import { errors } from '../errors/catalogue.ts'
import { allProblems } from '../kernel/config-check.ts'
import type { ConfigStore } from '../kernel/config-store.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import type { DiscoveryResult } from '../kernel/discovery.ts'
import { settingsErrors } from './errors.ts'
import type { Settings } from './schemas.ts'

const SETTINGS = 'speech.engine, ai.provider, history.enabled'

export class SettingsService {
  readonly #store: ConfigStore
  readonly #schema: TObject
  readonly #discovery: DiscoveryResult
  readonly #logger: PluginLogger
  /** Changes one at a time: each reads the file the previous one wrote. */
  #queue: Promise<unknown> = Promise.resolve()

  constructor(deps: {
    configStore: ConfigStore
    configSchema: TObject
    discovery: DiscoveryResult
    logger: PluginLogger
  }) {
    this.#store = deps.configStore
    this.#schema = deps.configSchema
    this.#discovery = deps.discovery
    this.#logger = deps.logger
  }

  read(): Settings {
    const config = this.#store.current
    const file = this.#store.file
    return {
      speech: { engine: config.speech.engine },
      ai: { provider: config.ai.provider },
      history: { enabled: config.history.enabled },
      available: { engines: this.#engines(), providers: this.#providers() },
      configFile: file === null ? null : { path: shortPath(file), exists: existsSync(file) },
    }
  }

  /** PATCH /v1/settings: checks the body, writes the file, applies the change; answers the settings. */
  change(body: unknown): Promise<Settings & { created: boolean }> {
    const changes = this.#parse(body)
    const run = this.#queue.then(() => this.#apply(changes))
    this.#queue = run.catch(() => {})
    return run
  }

  async #apply(changes: ConfigChange[]): Promise<Settings & { created: boolean }> {
    const file = this.#store.file
    if (file === null) throw errors.CONFIG_WRITE_FAILED('this dictum runs without a config file location.')
    const current = this.#store.current
    const next = structuredClone(current) as DictumConfig
    for (const [keys, value] of changes) setIn(next as unknown as Record<string, unknown>, keys, value)
    const frozen = resolveConfig(this.#schema, next as unknown as Record<string, unknown>)

    // The file as it will be must be a valid config too: a change never writes into a file with errors.
    const edit = await readConfigEdit(file, changes)
    const problems: string[] = []
    const value = validateConfig(this.#schema, { dataDir: current.dataDir, ...edit.content }, problems)
    const all = allProblems({ value, problems }, this.#discovery)
    if (all.length > 0) {
      throw errors.CONFIG_FILE_CONFLICT(`it has errors; fix them first: ${all.join('; ')}.`)
    }
    await writeConfigEdit(file, edit)
    this.#logger.info(
      { keys: changes.map(([keys]) => keys.join('.')), created: edit.created },
      'settings changed through the API: config file written',
    )
    const failures = await this.#store.update(frozen)
    for (const failure of failures)
      this.#logger.error({ error: failure.message }, 'applying the settings change failed')
    return { ...this.read(), created: edit.created }
  }

  #parse(body: unknown): ConfigChange[] {
    const fail = (d: string) => settingsErrors.INVALID_SETTINGS(d)
    if (!isObject(body)) throw fail('the body must be a JSON object.')
    const allowed: Record<string, string[]> = { speech: ['engine'], ai: ['provider'], history: ['enabled'] }
    const changes: ConfigChange[] = []
    for (const [group, inner] of Object.entries(body)) {
      const keys = allowed[group]
      if (!Object.hasOwn(allowed, group) || keys === undefined)
        throw fail(`${group} is not a setting this API changes (${SETTINGS}).`)
      if (!isObject(inner)) throw fail(`${group} must be an object.`)
      for (const [key, value] of Object.entries(inner)) {
        if (!keys.includes(key))
          throw fail(`${group}.${key} is not a setting this API changes (${SETTINGS}).`)
        changes.push([[group, key], this.#check(`${group}.${key}`, value)])
      }
    }
    if (changes.length === 0) throw fail(`expected at least one of ${SETTINGS}.`)
    return changes
  }

  #check(key: string, value: unknown): unknown {
    const fail = (d: string) => settingsErrors.INVALID_SETTINGS(d)
    if (key === 'history.enabled') {
      if (typeof value !== 'boolean') throw fail('history.enabled must be true or false.')
      return value
    }
    const [choices, noun] =
      key === 'speech.engine' ? [this.#engines(), 'engine'] : [this.#providers(), 'provider']
    if (typeof value !== 'string') throw fail(`${key} must be a string.`)
    if (!choices.includes(value)) {
      const shown = JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value)
      throw fail(`${key}: no ${noun} ${shown} (available: ${choices.join(', ')}).`)
    }
    return value
  }

  #engines(): string[] {
    return [...this.#discovery.engines.keys()]
  }

  #providers(): string[] {
    return ['none', ...this.#discovery.providers.keys()]
  }
}

/** The path with the home folder written `~`: an answer never names the user's home. */
function shortPath(file: string): string {
  const home = homedir()
  return file === home || file.startsWith(`${home}${path.sep}`) ? `~${file.slice(home.length)}` : file
}

function setIn(object: Record<string, unknown>, keys: readonly string[], value: unknown): void {
  let at = object
  for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>
  at[keys[keys.length - 1] as string] = value
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
