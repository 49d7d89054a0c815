/**
 * `GET /v1/models`: dictum's engines (id = engine id, usable as `model` of a transcription request) and the
 * model catalog (id = catalog id), in OpenAI's list shape. One endpoint serves OpenAI clients and
 * `dictum`'s own model listing.
 */

import type { EngineRegistry } from '../../kernel/registry.ts'
import { describeListItem } from '../../models/describe.ts'
import type { ModelManager } from '../../models/manager.ts'
import { OPENAI_MODEL_NAMES } from '../../models/model-choice.ts'
import type { ModelEntry } from './schemas.ts'

const OWNER = 'dictum'

export async function listModelEntries(
  engines: EngineRegistry,
  models: ModelManager,
  startedAt: number,
): Promise<ModelEntry[]> {
  const engineEntries = (await engines.list()).map(
    (engine): ModelEntry => ({
      ...engine,
      object: 'model',
      created: startedAt,
      owned_by: OWNER,
      kind: 'engine',
    }),
  )
  const modelEntries: ModelEntry[] = []
  for (const item of await models.list()) {
    const installedAt = item.installed ? (await models.readManifest(item.entry.id))?.installedAt : undefined
    const created = installedAt ? Math.floor(Date.parse(installedAt) / 1000) : startedAt
    modelEntries.push({
      ...describeListItem(item),
      // Where in the data dir, not the absolute path (it names the user's home); the CLI shows that one.
      path: item.installed ? `models/${item.entry.id}` : null,
      object: 'model',
      created: Number.isFinite(created) ? created : startedAt,
      owned_by: OWNER,
      kind: 'model',
    })
  }
  // OpenAI's names, so a client that checks the list before using one finds it: each is the selected engine.
  const selected = engines.activeId
  const openAiEntries = OPENAI_MODEL_NAMES.map(
    (id): ModelEntry => ({
      id,
      object: 'model',
      created: startedAt,
      owned_by: OWNER,
      kind: 'openai',
      displayName: `OpenAI's ${id}, answered by the selected engine (${selected})`,
      engine: selected,
    }),
  )
  return [...openAiEntries, ...engineEntries, ...modelEntries]
}
