/**
 * The JSON shape of one model, shared by `dictum models list --json` and `GET /v1/models`.
 */
import type { ModelListItem } from './manager.ts'

export interface ListItemDescription {
  id: string
  displayName: string
  family: string
  engine: string
  languages: string[]
  customWords: boolean
  archive: string
  url: string
  /** Download size in bytes (`sizeExact` false: a rounded upstream figure). */
  sizeBytes: number
  sizeExact: boolean
  sha256: string | null
  license: string
  installed: boolean
  path: string | null
  sizeOnDisk: number | null
}

export function describeListItem(item: ModelListItem): ListItemDescription {
  const { entry } = item
  return {
    id: entry.id,
    displayName: entry.displayName,
    family: entry.family,
    engine: entry.engine,
    languages: [...entry.languages],
    customWords: entry.customWords,
    archive: entry.archive,
    url: entry.url,
    sizeBytes: entry.sizeBytes,
    sizeExact: entry.sizeExact,
    sha256: entry.sha256,
    license: entry.license,
    installed: item.installed,
    path: item.path,
    sizeOnDisk: item.sizeOnDisk,
  }
}
