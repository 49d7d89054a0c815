/**
 * The engine registry: every discovered engine with its status, the selected one, and one runner per engine
 * (created on first use, loaded once even under parallel first requests, restarted when its options change).
 */
import path from 'node:path'
import type { DictumConfig } from '../config/schema.ts'
import type { ConfigStore } from './config-store.ts'
import type { EngineCapabilities, EngineDefinition, EngineProbe, PluginLogger } from './contracts/engine.ts'
import type { Discovered, DiscoveryResult } from './discovery.ts'
import type { EngineRunner, EngineRunnerOptions } from './engine-runner/types.ts'
import { errors } from './errors.ts'
import type { ModelManager } from './models/manager.ts'
import { resolveOptions } from './plugin-options.ts'

export type EngineStatusName = 'discovered' | 'loading' | 'ready' | 'unavailable' | 'failed'

/** One engine as `GET /v1/engines` shows it. */
export interface EngineStatus {
  id: string
  displayName: string
  description: string
  status: EngineStatusName
  reason: string | null
  fix: string | null
  capabilities: EngineCapabilities
  active: boolean
  builtIn: boolean
}

/** An engine ready to transcribe. */
export interface AcquiredEngine {
  id: string
  displayName: string
  capabilities: EngineCapabilities
  runner: EngineRunner
}

export type RunnerFactory = (options: EngineRunnerOptions) => EngineRunner

interface Live {
  optionsKey: string
  runner: EngineRunner
  /** Set once loaded: what `acquire` hands out while `speech` is the config in force. */
  acquired?: AcquiredEngine
  speech?: object
}

export class EngineRegistry {
  readonly #engines: Map<string, Discovered<EngineDefinition>>
  readonly #config: ConfigStore
  readonly #logger: PluginLogger
  readonly #factory: RunnerFactory
  readonly #models: ModelManager
  readonly #live = new Map<string, Live>()
  #closed = false

  constructor(deps: {
    discovery: DiscoveryResult
    configStore: ConfigStore
    logger: PluginLogger
    runnerFactory: RunnerFactory
    models: ModelManager
  }) {
    this.#models = deps.models
    this.#engines = deps.discovery.engines
    this.#config = deps.configStore
    this.#logger = deps.logger
    this.#factory = deps.runnerFactory
    deps.configStore.onChange((next) => this.#reconfigure(next))
  }

  get activeId(): string {
    return this.#config.current.speech.engine
  }

  ids(): string[] {
    return [...this.#engines.keys()]
  }

  /** Status of every engine (probes are cheap file checks). */
  async list(): Promise<EngineStatus[]> {
    return Promise.all([...this.#engines.keys()].map((id) => this.status(id)))
  }

  async status(id: string): Promise<EngineStatus> {
    const found = this.#find(id)
    const options = this.#options(id, found.definition)
    const base = {
      id,
      displayName: displayNameOf(found.definition, options),
      description: found.definition.description ?? '',
      capabilities: found.definition.capabilities(options as never),
      active: id === this.activeId,
      builtIn: found.builtIn,
    }
    const probe = await this.#probe(found.definition, options)
    if (!probe.available)
      return { ...base, status: 'unavailable', reason: probe.reason, fix: probe.fix ?? null }
    const runner = this.#live.get(id)?.runner
    // A crash or timeout leaves the runner idle with the error kept until a load succeeds again.
    if (runner && (runner.state === 'failed' || (runner.lastError && runner.state !== 'loading'))) {
      return { ...base, status: 'failed', reason: runner.lastError?.message ?? 'failed', fix: null }
    }
    if (!runner || runner.state === 'idle' || runner.state === 'closed') {
      return { ...base, status: 'discovered', reason: null, fix: null }
    }
    return { ...base, status: runner.state, reason: null, fix: null }
  }

  /** The engine to transcribe with (the selected one by default), loaded. */
  async acquire(id = this.activeId): Promise<AcquiredEngine> {
    if (this.#closed) throw errors.ENGINE_UNAVAILABLE('dictum is shutting down.')
    // A loaded engine under the same config is handed out at once: the probe (file checks) and option
    // resolution only matter before a load.
    const live = this.#live.get(id)
    if (live?.acquired && live.speech === this.#config.current.speech && live.runner.state === 'ready') {
      return live.acquired
    }
    const found = this.#find(id)
    const options = this.#options(id, found.definition)
    const displayName = displayNameOf(found.definition, options)
    await this.#autoPull(found.definition, options)
    const probe = await this.#probe(found.definition, options)
    if (!probe.available) {
      const fix = probe.fix ? ` Fix: ${probe.fix}` : ''
      throw errors.ENGINE_UNAVAILABLE(`${displayName}: ${probe.reason}.${fix}`.replace('..', '.'), {
        extra: { engine: id, ...(probe.fix ? { fix: probe.fix } : {}) },
      })
    }
    // close() may have run while this acquisition awaited the probe or a pull: start no engine process then.
    if (this.#closed) throw errors.ENGINE_UNAVAILABLE('dictum is shutting down.')
    const runner = this.#runner(id, found, options)
    await runner.load()
    const acquired = {
      id,
      displayName,
      capabilities: found.definition.capabilities(options as never),
      runner,
    }
    const entry = this.#live.get(id)
    if (entry?.runner === runner) Object.assign(entry, { acquired, speech: this.#config.current.speech })
    return acquired
  }

  async close(): Promise<void> {
    this.#closed = true
    const live = [...this.#live.values()]
    this.#live.clear()
    await Promise.allSettled(live.map((l) => l.runner.close()))
  }

  /** With `models.autoPull`, pulls the catalog models the engine's options need and that are missing. */
  async #autoPull(definition: EngineDefinition, options: unknown): Promise<void> {
    if (!this.#config.current.models.autoPull || !definition.models) return
    for (const id of definition.models(options as never)) {
      if (await this.#models.isInstalled(id)) continue
      this.#logger.info({ model: id }, 'models.autoPull: pulling the selected model')
      await this.#models.pull(id)
    }
  }

  #find(id: string): Discovered<EngineDefinition> {
    const found = this.#engines.get(id)
    if (!found) throw errors.ENGINE_NOT_FOUND(`"${id}" (known engines: ${this.ids().join(', ')}).`)
    return found
  }

  #options(id: string, definition: EngineDefinition): unknown {
    const result = resolveOptions(
      definition.optionsSchema,
      this.#config.current.speech.engines[id],
      `speech.engines.${id}`,
    )
    if (!result.ok) throw errors.ENGINE_UNAVAILABLE(`invalid options: ${result.problems.join('; ')}.`)
    return result.value
  }

  async #probe(definition: EngineDefinition, options: unknown): Promise<EngineProbe> {
    if (!definition.probe) return { available: true }
    try {
      return await definition.probe(this.#context(options))
    } catch (err) {
      return { available: false, reason: `probe failed: ${(err as Error).message}` }
    }
  }

  #context(options: unknown) {
    const { dataDir } = this.#config.current
    return { options, dataDir, modelsDir: path.join(dataDir, 'models'), logger: this.#logger }
  }

  #runner(id: string, found: Discovered<EngineDefinition>, options: unknown): EngineRunner {
    const speech = this.#config.current.speech
    const optionsKey = runnerKey(options, speech)
    const live = this.#live.get(id)
    if (live && live.optionsKey === optionsKey && live.runner.state !== 'closed') return live.runner
    if (live) void live.runner.close()
    const { logger: _, ...context } = this.#context(options)
    const runner = this.#factory({
      engineId: id,
      moduleSource: found.source,
      isolation: found.definition.isolation ?? 'process',
      definition: found.definition,
      context,
      concurrency: speech.concurrency,
      requestTimeoutMs: speech.timeoutMs,
      loadTimeoutMs: speech.loadTimeoutMs,
      logger: this.#logger,
    })
    this.#live.set(id, { optionsKey, runner })
    return runner
  }

  /** After a config change: close runners whose options changed (they restart on next use). */
  async #reconfigure(next: Readonly<DictumConfig>): Promise<void> {
    const closing: Promise<void>[] = []
    for (const [id, live] of this.#live) {
      const found = this.#engines.get(id)
      const result = found && resolveOptions(found.definition.optionsSchema, next.speech.engines[id], id)
      const key = result?.ok ? runnerKey(result.value, next.speech) : null
      if (key !== live.optionsKey) {
        this.#live.delete(id)
        this.#logger.info({ engine: id }, 'engine options changed: restarting it on next use')
        closing.push(live.runner.close())
      }
    }
    await Promise.allSettled(closing)
  }
}

/** Runners are rebuilt when this changes: the engine's options or the runner settings. */
function runnerKey(options: unknown, speech: DictumConfig['speech']): string {
  return JSON.stringify([options, speech.concurrency, speech.timeoutMs, speech.loadTimeoutMs])
}

export function displayNameOf(definition: EngineDefinition, options: unknown): string {
  const name = definition.displayName
  return typeof name === 'function' ? name(options as never) : name
}
