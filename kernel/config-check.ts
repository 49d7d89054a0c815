/**
 * The config as the service and the CLI load it: core keys and the plugins' options checked together, so
 * that every invalid key is reported in one error (the plugins are discovered from the draft's `plugins`
 * first; their options schemas come with them).
 */

import type { TObject } from '@sinclair/typebox'
import {
  configInvalid,
  type DraftConfig,
  draftConfig,
  freezeConfig,
  type LoadedConfig,
  type LoadOptions,
} from '../config/load.ts'
import type { DictumConfig } from '../config/schema.ts'
import { type DiscoveryResult, discoverPlugins } from './discovery.ts'
import { checkPluginConfig } from './plugin-options.ts'

export interface CheckedConfig {
  loaded: LoadedConfig
  discovery: DiscoveryResult
}

/** `schema`: the composed config schema (server/config-schema.ts). */
export async function loadCheckedConfig(
  schema: TObject,
  options: LoadOptions & { discovery?: DiscoveryResult },
): Promise<CheckedConfig> {
  const draft = draftConfig(schema, options)
  const plugins = Array.isArray(draft.value.plugins)
    ? draft.value.plugins.filter((p): p is string => typeof p === 'string' && p !== '')
    : []
  const discovery = options.discovery ?? (await discoverPlugins({ plugins }))
  const problems = allProblems(draft, discovery)
  if (problems.length > 0) throw configInvalid(problems)
  return { loaded: { config: freezeConfig(draft.value), file: draft.file }, discovery }
}

/** The draft's own problems, then the plugin options' (a key already reported is not reported twice). */
export function allProblems(
  draft: Pick<DraftConfig, 'value' | 'problems'>,
  discovery: DiscoveryResult,
): string[] {
  const reported = draft.problems.map((p) => p.slice(0, p.indexOf(':')))
  let pluginProblems: string[]
  try {
    pluginProblems = checkPluginConfig(draft.value as unknown as DictumConfig, discovery)
  } catch {
    // Shapes so broken that the plugin check cannot read them are reported by the core check already.
    pluginProblems = []
  }
  const fresh = pluginProblems.filter((p) => {
    const key = p.slice(0, p.indexOf(':'))
    return !reported.some((r) => key === r || key.startsWith(`${r}.`) || r.startsWith(`${key}.`))
  })
  return [...draft.problems, ...fresh]
}
