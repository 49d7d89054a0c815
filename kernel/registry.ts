/**
 * The engine registry: every discovered engine with its status, the selected one, and one runner per engine
 * (created on first use, loaded once even under parallel first requests, replaced when its options change).
 * A replaced runner is drained, not killed: the requests holding it finish on it, new requests get the new
 * runner, and it closes when its last request releases it.
 */
import path from 'node:path'
import type { DictumConfig } from '../config/schema.ts'
import { errors } from '../errors/catalogue.ts'
import {
  type ConcurrencyChoice,
  chooseConcurrency,
  type MachineResources,
  memoryEstimateOf,
} from './concurrency.ts'
import type { ConfigStore } from './config-store.ts'
import type { EngineCapabilities, EngineDefinition, EngineProbe, PluginLogger } from './contracts/engine.ts'
import type { Discovered, DiscoveryResult } from './discovery.ts'
import type { EngineRunner, EngineRunnerOptions } from './engine-runner/types.ts'
import { resolveOptions } from './plugin-options.ts'
import { PluginSlots, type Slot } from './plugin-slots.ts'

/** An engine's capabilities as the kernel reports them: `streaming`, `logprobs` and `translate` always said. */
export type ReportedCapabilities = EngineCapabilities & {
  streaming: boolean
  logprobs: boolean
  translate: boolean
}

export type EngineStatusName = 'discovered' | 'loading' | 'ready' | 'unavailable' | 'failed'

/** One engine as `GET /v1/engines` shows it. */
export interface EngineStatus {
  id: string
  displayName: string
  description: string
  status: EngineStatusName
  reason: string | null
  fix: string | null
  capabilities: ReportedCapabilities
  active: boolean
  builtIn: boolean
  /** Engine processes it runs at once: the runner's in force, else what a load now would take. */
  concurrency: number
  /** Why that number (config `speech.concurrency`, or what "auto" found). */
  concurrencyReason: string
}

/**
 * An engine ready to transcribe, held by one request until it calls `release()`. A live session holds one
 * for its whole life (its streams are opened on `runner`), so a config edit drains it like a request.
 */
export interface AcquiredEngine {
  id: string
  displayName: string
  capabilities: ReportedCapabilities
  runner: EngineRunner
  /** Transcriptions the runner runs at once (its slots): a long file sends up to this many pieces at once. */
  concurrency: number
  /**
   * Call once (more calls do nothing) when the request is done with the engine: a runner a config edit
   * replaced closes when its last request has released it, and a model's idle time starts then.
   */
  release(): void
}

export type RunnerFactory = (options: EngineRunnerOptions) => EngineRunner

/** An engine loaded for one request's catalog model (OpenAI `model`) is closed after this long unused. */
export const MODEL_IDLE_MS = 5 * 60_000

/** An engine's slot value: its runner, and what a loaded engine hands out. */
interface EngineSlot {
  runner: EngineRunner
  /** The runner's slots, and why (fixed when it was created). */
  concurrency: ConcurrencyChoice
  /** For an engine loaded with a requested model: closes it once unused for MODEL_IDLE_MS. */
  idle?: IdleUnload
  /** Set once loaded: what `acquire` hands out while `speech` is the config in force. */
  acquired?: Omit<AcquiredEngine, 'release'>
  speech?: object
}

/** What the registry needs of the model manager (models/) for `models.autoPull`. */
export interface ModelInstaller {
  isInstalled(id: string): Promise<boolean>
  pull(id: string): Promise<unknown>
}

export class EngineRegistry {
  readonly #engines: Map<string, Discovered<EngineDefinition>>
  readonly #config: ConfigStore
  readonly #logger: PluginLogger
  readonly #factory: RunnerFactory
  readonly #models: ModelInstaller
  readonly #machine: MachineResources
  /** A runner per engine (and per engine@model), drained when an edit replaces it (see plugin-slots.ts). */
  readonly #slots: PluginSlots<EngineSlot>
  #closed = false
  /** Set by the first preload (a server's warm-up): config edits preload the selected engine too. */
  #preloadOnEdit = false

  constructor(deps: {
    discovery: DiscoveryResult
    configStore: ConfigStore
    logger: PluginLogger
    runnerFactory: RunnerFactory
    models: ModelInstaller
    machine: MachineResources
  }) {
    this.#models = deps.models
    this.#machine = deps.machine
    this.#engines = deps.discovery.engines
    this.#config = deps.configStore
    this.#logger = deps.logger
    this.#factory = deps.runnerFactory
    this.#slots = new PluginSlots<EngineSlot>({
      close: (engine) => engine.runner.close(),
      held: (slot) => slot.value.idle?.cancel(),
      idle: (slot) => slot.value.idle?.touch(),
      draining: (key, slot) =>
        this.#logger.info(
          { engine: key, requests: slot.users },
          'engine options changed: the requests in flight finish first, new ones use the new options',
        ),
    })
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
    const live = this.#slots.get(id)?.value
    const concurrency = live?.concurrency ?? this.#concurrency(found.definition, options)
    const base = {
      id,
      displayName: displayNameOf(found.definition, options),
      description: found.definition.description ?? '',
      capabilities: capabilitiesOf(found.definition, options),
      active: id === this.activeId,
      builtIn: found.builtIn,
      concurrency: concurrency.concurrency,
      concurrencyReason: concurrency.reason,
    }
    const probe = await this.#probe(found.definition, options)
    if (!probe.available)
      return { ...base, status: 'unavailable', reason: probe.reason, fix: probe.fix ?? null }
    const runner = live?.runner
    // A crash or timeout leaves the runner idle with the error kept until a load succeeds again.
    if (runner && (runner.state === 'failed' || (runner.lastError && runner.state !== 'loading'))) {
      return { ...base, status: 'failed', reason: runner.lastError?.message ?? 'failed', fix: null }
    }
    if (!runner || runner.state === 'idle' || runner.state === 'closed') {
      return { ...base, status: 'discovered', reason: null, fix: null }
    }
    return { ...base, status: runner.state, reason: null, fix: null }
  }

  /**
   * The engine to transcribe with (the selected one by default), loaded. With `model` (a catalog model the
   * engine runs), the engine is loaded with that model instead of the one its options name, beside the
   * configured one, and closed again after MODEL_IDLE_MS unused.
   */
  async acquire(id = this.activeId, model?: string): Promise<AcquiredEngine> {
    if (this.#closed) throw errors.ENGINE_UNAVAILABLE('dictum is shutting down.')
    const key = model === undefined ? id : `${id}@${model}`
    // A loaded engine under the same config is handed out at once: the probe (file checks) and option
    // resolution only matter before a load.
    const live = this.#slots.get(key)
    const loaded = live?.value
    if (
      loaded?.acquired &&
      loaded.speech === this.#config.current.speech &&
      loaded.runner.state === 'ready'
    ) {
      return { ...loaded.acquired, release: this.#slots.hold(live!) }
    }
    const found = this.#find(id)
    const options = this.#options(id, found.definition, model)
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
    const slot = this.#runner(key, id, found, options)
    const engine = slot.value
    // Held from before the load: a config edit during the load lets this request finish on this runner.
    const release = this.#slots.hold(slot)
    try {
      await engine.runner.load()
    } catch (error) {
      release()
      throw error
    }
    if (model !== undefined) engine.idle ??= new IdleUnload(() => this.#unload(key, slot))
    const acquired = {
      id,
      displayName,
      capabilities: capabilitiesOf(found.definition, options),
      runner: engine.runner,
      concurrency: engine.concurrency.concurrency,
    }
    if (this.#slots.get(key) === slot)
      Object.assign(engine, { acquired, speech: this.#config.current.speech })
    return { ...acquired, release }
  }

  /**
   * Loads the selected engine when `speech.preload` is on (the server's warm-up, once it listens), so that
   * the first dictation or live session finds it loaded; and again after each config edit from then on
   * (another engine selected in the settings is loaded before the next dictation needs it). The warm-up
   * does not await it (a shutdown then never waits for a model load); a request that comes meanwhile
   * shares the load (acquire). Resolves once loaded, or once a failure is logged: the same error the
   * engine's first request gets (a missing model…).
   */
  async preload(): Promise<void> {
    // From now on a config edit that selects another engine (or changes its options) loads it too.
    this.#preloadOnEdit = true
    if (!this.#config.current.speech.preload || this.#closed) return
    const id = this.activeId
    try {
      const engine = await this.acquire(id)
      engine.release()
    } catch (error) {
      if (!this.#closed)
        this.#logger.warn(
          { engine: id, error: (error as Error).message },
          'the selected engine could not load',
        )
    }
  }

  /**
   * The pronunciation dictionary file of the engine's configured model (its definition's
   * `pronunciationDictionary`), or null when it names none. ENGINE_NOT_FOUND for an unknown id.
   */
  pronunciationDictionary(id: string): string | null {
    const { definition } = this.#find(id)
    if (!definition.pronunciationDictionary) return null
    return definition.pronunciationDictionary(this.#context(this.#options(id, definition))) ?? null
  }

  /** Closes a model's engine unused for MODEL_IDLE_MS (the timer only runs while no request holds it). */
  #unload(key: string, slot: Slot<EngineSlot>): void {
    if (this.#slots.get(key) !== slot || slot.users > 0) return
    this.#logger.info({ engine: key }, 'unloading an engine model unused for a while')
    this.#slots.retire(key, slot)
  }

  /**
   * Takes `slot` out of service after a config edit: new requests get a new runner; the requests holding
   * this one (running or queued in it) finish on it, each bounded by its own timeout, then it closes.
   */
  #retire(key: string, slot: Slot<EngineSlot>): void {
    slot.value.idle?.cancel()
    if (slot.users === 0)
      this.#logger.info({ engine: key }, 'engine options changed: restarting it on next use')
    this.#slots.retire(key, slot)
  }

  async close(): Promise<void> {
    this.#closed = true
    for (const [, slot] of this.#slots.entries()) slot.value.idle?.cancel()
    await this.#slots.close()
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

  #options(id: string, definition: EngineDefinition, model?: string): unknown {
    const configured = this.#config.current.speech.engines[id]
    const result = resolveOptions(
      definition.optionsSchema,
      model === undefined ? configured : { ...(configured as object), model },
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

  /** The slots a runner created now would get (config `speech.concurrency`, "auto" read from the machine). */
  #concurrency(definition: EngineDefinition, options: unknown): ConcurrencyChoice {
    const { speech } = this.#config.current
    return chooseConcurrency({
      setting: speech.concurrency,
      machine: this.#machine,
      estimateMb: memoryEstimateOf(definition, options),
      memoryLimitMb: speech.memoryLimitMb,
      isolation: definition.isolation ?? 'process',
    })
  }

  #context(options: unknown) {
    const { dataDir } = this.#config.current
    return { options, dataDir, modelsDir: path.join(dataDir, 'models'), logger: this.#logger }
  }

  #runner(key: string, id: string, found: Discovered<EngineDefinition>, options: unknown): Slot<EngineSlot> {
    const speech = this.#config.current.speech
    const live = this.#slots.get(key)
    const optionsKey = runnerKey(options, speech)
    if (live && (live.optionsKey !== optionsKey || live.value.runner.state === 'closed'))
      this.#retire(key, live)
    const slot = this.#slots.take(key, optionsKey, () => {
      const { logger: _, ...context } = this.#context(options)
      const concurrency = this.#concurrency(found.definition, options)
      this.#logger.info(
        { engine: key, concurrency: concurrency.concurrency, reason: concurrency.reason },
        'engine processes',
      )
      const runner = this.#factory({
        engineId: id,
        moduleSource: found.source,
        isolation: found.definition.isolation ?? 'process',
        definition: found.definition,
        context,
        concurrency: concurrency.concurrency,
        requestTimeoutMs: speech.timeoutMs,
        loadTimeoutMs: speech.loadTimeoutMs,
        memoryLimitMb: speech.memoryLimitMb,
        logger: this.#logger,
      })
      return { runner, concurrency }
    })
    // A runner kept takes the timeouts in force for its next requests.
    slot.value.runner.setTimeouts(timeoutsOf(speech))
    return slot
  }

  /**
   * After a config change: runners whose options changed are replaced (drained, see #retire); new timeouts
   * apply to the next requests of the runners kept, without restarting them.
   */
  #reconfigure(next: Readonly<DictumConfig>): void {
    for (const [key, live] of this.#slots.entries()) {
      const [id = key, model] = key.split('@')
      const found = this.#engines.get(id)
      const configured = next.speech.engines[id]
      const raw = model === undefined ? configured : { ...(configured as object), model }
      const result = found && resolveOptions(found.definition.optionsSchema, raw, id)
      const optionsKey = result?.ok ? runnerKey(result.value, next.speech) : null
      if (optionsKey === live.optionsKey) live.value.runner.setTimeouts(timeoutsOf(next.speech))
      else this.#retire(key, live)
    }
    if (this.#preloadOnEdit) void this.preload()
  }
}

/**
 * Runners are replaced when this changes: the engine's options, the pool size or the hosts' memory limit (a
 * process flag). Timeouts are not part of it: a runner takes new ones for its next requests (setTimeouts).
 */
function runnerKey(options: unknown, speech: DictumConfig['speech']): string {
  return JSON.stringify([options, speech.concurrency, speech.memoryLimitMb])
}

function timeoutsOf(speech: DictumConfig['speech']) {
  return { requestTimeoutMs: speech.timeoutMs, loadTimeoutMs: speech.loadTimeoutMs }
}

/** The engine's capabilities with these options, the optional flags always said (the plugin may leave them out). */
function capabilitiesOf(definition: EngineDefinition, options: unknown): ReportedCapabilities {
  const capabilities = definition.capabilities(options as never)
  return {
    ...capabilities,
    streaming: capabilities.streaming === true,
    logprobs: capabilities.logprobs === true,
    translate: capabilities.translate === true,
  }
}

export function displayNameOf(definition: EngineDefinition, options: unknown): string {
  const name = definition.displayName
  return typeof name === 'function' ? name(options as never) : name
}

/**
 * Closes an engine loaded for a requested model once it has been unused for MODEL_IDLE_MS. The registry
 * cancels the timer while a request holds the engine and touches it when the last one releases it.
 */
class IdleUnload {
  readonly #unload: () => void
  #timer: NodeJS.Timeout | null = null

  constructor(unload: () => void) {
    this.#unload = unload
  }

  /** Unused from now: the idle time starts again. */
  touch(): void {
    this.cancel()
    this.#timer = setTimeout(() => {
      this.#timer = null
      this.#unload()
    }, MODEL_IDLE_MS)
    this.#timer.unref()
  }

  cancel(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = null
  }
}
