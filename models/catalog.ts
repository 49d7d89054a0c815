/**
 * The model catalog the model manager serves: the models of every discovered engine (each engine ships its
 * own in its definition's `catalog`, kernel/contracts/catalog.ts) and the Silero VAD's (vad/catalog.ts).
 */

import { errors } from '../errors/catalogue.ts'
import type { Catalog, CatalogEntry } from '../kernel/contracts/catalog.ts'
import type { EngineDefinition } from '../kernel/contracts/engine.ts'
import { VAD_CATALOG } from '../vad/catalog.ts'

/**
 * Every engine's catalog entries (in discovery order), then the VAD's. Discovery has checked each engine's own
 * entries; an id declared twice (by two engines, or by an engine and the VAD) stops the start (PLUGIN_INVALID).
 */
export function modelCatalog(engines: Iterable<{ definition: EngineDefinition }>): Catalog {
  const engineEntries = [...engines].flatMap(({ definition }) => definition.catalog ?? [])
  const owners = new Map<string, string>()
  for (const entry of [...VAD_CATALOG, ...engineEntries]) {
    const owner = owners.get(entry.id)
    if (owner !== undefined) {
      throw errors.PLUGIN_INVALID(
        `engine "${entry.engine}" declares catalog model "${entry.id}", which "${owner}" declares too`,
      )
    }
    owners.set(entry.id, entry.engine)
  }
  return [...engineEntries, ...VAD_CATALOG]
}

/** The entry with this id, or throws MODEL_NOT_FOUND. */
export function findEntry(catalog: Catalog, id: string): CatalogEntry {
  const entry = catalog.find((candidate) => candidate.id === id)
  if (!entry) throw errors.MODEL_NOT_FOUND(`${id}. Run \`dictum models list\` to see the catalog.`)
  return entry
}

/** The file name the download is known by (last path segment of its URL). */
export function archiveFileName(entry: CatalogEntry): string {
  const last = new URL(entry.url).pathname.split('/').pop()
  return last && last.length > 0 ? decodeURIComponent(last) : `${entry.id}.${entry.archive}`
}
