/** Validates a plugin's options (config `speech.engines.<id>` / `ai.providers.<id>`) against its schema. */
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { DictumConfig } from '../config/schema.ts'
import { formatPath } from '../lib/validate.ts'
import type { DiscoveryResult } from './discovery.ts'

export type OptionsResult = { ok: true; value: unknown } | { ok: false; problems: string[] }

/** Applies the schema's defaults and lists every violation, each prefixed with `label`. */
export function resolveOptions(schema: TSchema, raw: unknown, label: string): OptionsResult {
  const value = Value.Default(schema, structuredClone(raw ?? {}))
  const problems = [...Value.Errors(schema, value)].map((e) => {
    const where = formatPath(e.path)
    return `${label}${where ? `.${where.replace(/^\[/, '[')}` : ''}: ${e.message}`
  })
  return problems.length === 0 ? { ok: true, value } : { ok: false, problems }
}

/**
 * Cross-checks a config against the discovered plugins: the selected engine and provider exist, and every
 * configured engine's and provider's options are valid. Returns every problem (empty when all is well).
 */
export function checkPluginConfig(config: DictumConfig, found: DiscoveryResult): string[] {
  const problems: string[] = []
  if (!found.engines.has(config.speech.engine)) {
    problems.push(
      `speech.engine: no engine "${config.speech.engine}" (known: ${[...found.engines.keys()].join(', ')})`,
    )
  }
  if (config.ai.provider !== 'none' && !found.providers.has(config.ai.provider)) {
    problems.push(
      `ai.provider: no provider "${config.ai.provider}" (known: none, ${[...found.providers.keys()].join(', ')})`,
    )
  }
  for (const [id, options] of Object.entries(config.speech.engines)) {
    const engine = found.engines.get(id)
    if (!engine) problems.push(`speech.engines.${id}: no engine "${id}"`)
    else collect(resolveOptions(engine.definition.optionsSchema, options, `speech.engines.${id}`), problems)
  }
  for (const [id, options] of Object.entries(config.ai.providers)) {
    const provider = found.providers.get(id)
    if (!provider) problems.push(`ai.providers.${id}: no provider "${id}"`)
    else collect(resolveOptions(provider.definition.optionsSchema, options, `ai.providers.${id}`), problems)
  }
  return problems
}

function collect(result: OptionsResult, into: string[]): void {
  if (!result.ok) into.push(...result.problems)
}
