/**
 * What an interrupted pull can leave under `<modelsDir>`, and how to tell leftovers from work in progress:
 * `.staging/<id>+…` folders (unpacking), `.partial/<id>.<ext>.part[.json]` (resumable downloads) and
 * `.partial/<id>.lock` (pull locks holding a pid).
 */
import { lstat, readdir, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import type { Catalog, CatalogEntry } from '../kernel/contracts/catalog.ts'
import { stagingDir } from './install.ts'
import { isAlive, lockOwner, lockPath } from './pull-lock.ts'

export interface StaleScan {
  modelsDir: string
  catalog: Catalog
  /** Partial downloads untouched for longer are leftovers. */
  partialMaxAgeMs: number
  /** True when this process is pulling the model right now. */
  pullingHere: (id: string) => boolean
}

export function partialDir(modelsDir: string): string {
  return path.join(modelsDir, '.partial')
}

/** Deletes leftovers (never what a live pull, here or in another process, is using); returns their paths. */
export async function removeStale(scan: StaleScan): Promise<string[]> {
  const removed: string[] = []
  const staging = stagingDir(scan.modelsDir)
  for (const name of await readdir(staging).catch(() => [] as string[])) {
    if (await busy(scan, name.split('+')[0] ?? name)) continue
    await rm(path.join(staging, name), { recursive: true, force: true })
    removed.push(path.join(staging, name))
  }
  const partial = partialDir(scan.modelsDir)
  for (const name of await readdir(partial).catch(() => [] as string[])) {
    const file = path.join(partial, name)
    if (await isStalePartialFile(scan, name, file)) {
      await rm(file, { force: true })
      removed.push(file)
    }
  }
  return removed
}

/** True while a pull of `id` runs in this process or in another live one. */
async function busy(scan: StaleScan, id: string): Promise<boolean> {
  if (scan.pullingHere(id)) return true
  const owner = await lockOwner(lockPath(partialDir(scan.modelsDir), id))
  return owner !== null && isAlive(owner)
}

async function isStalePartialFile(scan: StaleScan, name: string, file: string): Promise<boolean> {
  const info = await stat(file).catch(() => null)
  if (info === null) return false
  const age = Date.now() - info.mtimeMs
  if (name.endsWith('.lock')) {
    const owner = await lockOwner(file)
    // A lock without a pid may be one that is being written right now.
    return owner === null ? age > 60_000 : !isAlive(owner)
  }
  const entry = entryOfPart(scan.catalog, name)
  if (!entry) return true
  if (await busy(scan, entry.id)) return false
  return age > scan.partialMaxAgeMs
}

/** The catalog entry a `.partial` file name belongs to (ids contain dots, so the longest match wins). */
function entryOfPart(catalog: Catalog, name: string): CatalogEntry | undefined {
  const matches = catalog.filter((entry) => name.startsWith(`${entry.id}.${entry.archive}.part`))
  return matches.sort((a, b) => b.id.length - a.id.length)[0]
}

/** Bytes used by the files under a folder. */
export async function diskUsage(folder: string): Promise<number> {
  let total = 0
  for (const entry of await readdir(folder, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(folder, entry.name)
    if (entry.isDirectory()) total += await diskUsage(full)
    else total += (await lstat(full).catch(() => null))?.size ?? 0
  }
  return total
}
