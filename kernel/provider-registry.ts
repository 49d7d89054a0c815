/**
 * The AI-provider registry: every discovered provider, the selected one (`ai.provider`), one instance per
 * provider created on first use (single-flight), recreated when its options change (the old instance closes
 * once the requests using it are done: closing aborts a provider's requests). Provider failures are
 * translated here into catalogue errors naming the provider, with every secret option value redacted.
 */

import { type DictumError, errors, isDictumError } from '../errors/catalogue.ts'
import { redact, redactError, secretValues } from '../lib/secrets.ts'
import { timeLimit } from '../lib/timeout.ts'
import type { ConfigStore } from './config-store.ts'
import type { PluginLogger } from './contracts/engine.ts'
import type { ProviderCapabilities, ProviderDefinition, ProviderInstance } from './contracts/provider.ts'
import type { Discovered, DiscoveryResult } from './discovery.ts'
import { resolveOptions } from './plugin-options.ts'
import { PluginSlots, type Slot } from './plugin-slots.ts'

export interface ProviderStatus {
  id: string
  displayName: string
  description: string
  status: 'discovered' | 'loading' | 'ready' | 'failed'
  reason: string | null
  capabilities: ProviderCapabilities
  active: boolean
  builtIn: boolean
}

export interface ProcessOutcome {
  text: string
  /** The provider id. */
  provider: string
  model: string
}

/** A provider's slot value: its instance as it comes up, and how that went. */
interface ProviderSlot {
  instance: Promise<ProviderInstance>
  state: 'loading' | 'ready' | 'failed'
  error: string | null
}

export class ProviderRegistry {
  readonly #providers: Map<string, Discovered<ProviderDefinition>>
  readonly #config: ConfigStore
  readonly #logger: PluginLogger
  /** An instance per provider, drained when an edit of its options replaces it (see plugin-slots.ts). */
  readonly #slots = new PluginSlots<ProviderSlot>({
    // Closing aborts a provider's requests: a replaced instance closes once the requests using it are done.
    close: async (provided) => {
      const instance = await provided.instance.catch(() => null)
      await instance?.close?.()
    },
  })

  constructor(deps: { discovery: DiscoveryResult; configStore: ConfigStore; logger: PluginLogger }) {
    this.#providers = deps.discovery.providers
    this.#config = deps.configStore
    this.#logger = deps.logger
  }

  /** The selected provider id, or `none`. */
  get activeId(): string {
    return this.#config.current.ai.provider
  }

  list(): ProviderStatus[] {
    return [...this.#providers.values()].map(({ definition, builtIn }) => {
      const options = this.#options(definition)
      const live = this.#slots.get(definition.id)?.value
      return {
        id: definition.id,
        displayName: definition.displayName,
        description: definition.description ?? '',
        status: live?.state ?? 'discovered',
        reason: live?.error ?? null,
        capabilities: definition.capabilities(options as never),
        active: definition.id === this.activeId,
        builtIn,
      }
    })
  }

  /**
   * Runs the selected provider on `text`. Throws NO_AI_PROVIDER when none is selected, PROVIDER_TIMEOUT after
   * the time limit (see `timeLimitMs`), PROVIDER_FAILED for anything the provider throws.
   */
  async process(
    text: string,
    request: { appName?: string; signal?: AbortSignal; commandsApplied?: boolean } = {},
  ): Promise<ProcessOutcome> {
    const id = this.activeId
    if (id === 'none') throw errors.NO_AI_PROVIDER()
    const found = this.#providers.get(id)
    if (!found) throw errors.PROVIDER_NOT_FOUND(`"${id}".`)
    const { definition } = found
    const options = this.#options(definition) as Record<string, unknown>
    const ai = this.#config.current.ai
    const limitMs = timeLimitMs(ai.timeoutMs, options)
    const limit = timeLimit(limitMs, { signal: request.signal })
    const appPrompt = request.appName ? ai.appPrompts[request.appName] : undefined
    const prompt = appPrompt ?? (typeof options.prompt === 'string' ? options.prompt : undefined)
    let release: (() => void) | undefined
    // Named by the error: the instance failed to come up, or it failed on this text.
    let operation: 'load' | 'process' = 'load'
    try {
      const slot = this.#slot(definition, options)
      release = this.#slots.hold(slot)
      const instance = await slot.value.instance
      operation = 'process'
      const result = await limit.race(
        instance.process(
          {
            text,
            ...(prompt ? { prompt } : {}),
            ...(request.appName ? { appName: request.appName } : {}),
            ...(request.commandsApplied ? { commandsApplied: true } : {}),
          },
          limit.signal,
        ),
      )
      if (typeof result?.text !== 'string') throw new Error('the provider returned no text')
      return {
        text: result.text,
        provider: id,
        model: result.model || definition.defaultModel?.(options as never) || '',
      }
    } catch (err) {
      throw this.#translate(err, definition, options, operation, limit.expired)
    } finally {
      limit.clear()
      release?.()
    }
  }

  close(): Promise<void> {
    return this.#slots.close()
  }

  #options(definition: ProviderDefinition): unknown {
    const raw = this.#config.current.ai.providers[definition.id]
    const result = resolveOptions(definition.optionsSchema, raw, `ai.providers.${definition.id}`)
    if (!result.ok) throw errors.PROVIDER_UNAVAILABLE(`invalid options: ${result.problems.join('; ')}.`)
    return result.value
  }

  /** The provider's instance for these options: made on first use (one load for parallel requests). */
  #slot(definition: ProviderDefinition, options: unknown): Slot<ProviderSlot> {
    const live = this.#slots.get(definition.id)
    // A failed instance is made again on the next request.
    if (live?.value.state === 'failed') this.#slots.retire(definition.id, live)
    return this.#slots.take(definition.id, JSON.stringify(options), () => {
      const provided: ProviderSlot = {
        state: 'loading',
        error: null,
        instance: Promise.resolve(null as never),
      }
      provided.instance = (async () => {
        const { dataDir } = this.#config.current
        const instance = await definition.create({ options, dataDir, logger: this.#logger })
        await instance.load?.()
        return instance
      })().then(
        (instance) => {
          provided.state = 'ready'
          return instance
        },
        (err: unknown) => {
          provided.state = 'failed'
          provided.error = redactOptions((err as Error)?.message ?? String(err), definition, options)
          throw err
        },
      )
      return provided
    })
  }

  /**
   * Every failure leaves here as a catalogue error that names the provider and the operation (`load`: creating
   * and loading the instance, `process`: the text) and keeps the provider's error as its cause; secrets are
   * redacted from the message.
   */
  #translate(
    err: unknown,
    definition: ProviderDefinition,
    options: unknown,
    operation: 'load' | 'process',
    timedOut: boolean,
  ): DictumError {
    if (isDictumError(err)) return rebuild(err, definition, options)
    const name = definition.displayName
    const cause = redactError(err, secretsOf(definition, options))
    if (timedOut || (err as Error)?.name === 'TimeoutError') {
      const limitMs = timeLimitMs(this.#config.current.ai.timeoutMs, options)
      return errors.PROVIDER_TIMEOUT(`${name} did not answer within ${limitMs} ms.`, { cause })
    }
    // Providers often name themselves already ("ollama: HTTP 404…"): say the name once.
    const message = redactOptions((err as Error)?.message ?? String(err), definition, options).replace(
      new RegExp(`^(${escapeRegExp(definition.id)}|${escapeRegExp(name)}):\\s*`, 'i'),
      '',
    )
    this.#logger.warn({ provider: definition.id, operation, error: message }, 'AI provider failed')
    return errors.PROVIDER_FAILED(`${name}: ${operation}: ${message.replace(/\.$/, '')}.`, { cause })
  }
}

/** A DictumError from a provider keeps its code; its message is redacted like any other. */
function rebuild(err: DictumError, definition: ProviderDefinition, options: unknown): DictumError {
  const message = redactOptions(err.message, definition, options)
  if (message === err.message) return err
  return Object.assign(Object.create(Object.getPrototypeOf(err)), err, { message }) as DictumError
}

/**
 * Takes out of `text` every secret of the provider's options (secret names and its `secretOptions`) and of
 * the environment (providers read their keys from it), with the URL credentials and key-shaped strings
 * redact() always removes.
 */
function redactOptions(text: string, definition: ProviderDefinition, options: unknown): string {
  return redact(text, secretsOf(definition, options))
}

function secretsOf(definition: ProviderDefinition, options: unknown): string[] {
  return [...secretValues(options, definition.secretOptions), ...secretValues(process.env)]
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** A provider's time limit when neither `ai.timeoutMs` nor the provider's options set one. */
const DEFAULT_TIME_LIMIT_MS = 30_000

/**
 * How long one post-processing may take: the provider's own `timeoutMs` option (Ollama's 60 s default, made
 * for its first request loading the model, must be able to fire), 30 s for a provider without one, and
 * `ai.timeoutMs`, when set, caps every provider.
 */
export function timeLimitMs(kernelLimitMs: number | null, options: unknown): number {
  const own = (options as { timeoutMs?: unknown } | null)?.timeoutMs
  const providerLimitMs = typeof own === 'number' && own > 0 ? own : DEFAULT_TIME_LIMIT_MS
  return kernelLimitMs === null ? providerLimitMs : Math.min(kernelLimitMs, providerLimitMs)
}
