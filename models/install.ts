/**
 * Installs a verified archive as `<modelsDir>/<id>/`: unpack into `<modelsDir>/.staging/<id>+<random>/`, strip
 * the archive's single top-level folder, check the catalog's files, write the install manifest, then `rename`
 * the folder into place (atomic on one file system; an existing install is renamed aside first and deleted
 * after). Whatever fails, the staging folder is removed, so a model folder is either complete or absent.
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { copyFile, mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { errors } from '../errors/catalogue.ts'
import type { CatalogEntry } from '../kernel/contracts/catalog.ts'
import { extractArchive } from './extract.ts'

/** Written into every installed model folder; `verify` and `list` read it. */
export const MANIFEST_FILE = '.dictum-model.json'

export interface InstallManifest {
  id: string
  /** SHA-256 of the archive the model was installed from. */
  sha256: string
  /** True when that digest matched the catalog's; false when the catalog had none (trust on first use). */
  sha256Verified: boolean
  /** Where the archive came from (URL without credentials or query, or `file`). */
  source: string
  archiveBytes: number
  installedAt: string
  /** Size of each catalog file at install time. */
  files: Record<string, number>
}

export interface InstallRequest {
  entry: CatalogEntry
  archivePath: string
  modelsDir: string
  archive: { sha256: string; sha256Verified: boolean; source: string; sizeBytes: number }
  signal?: AbortSignal | undefined
}

export function stagingDir(modelsDir: string): string {
  return path.join(modelsDir, '.staging')
}

export async function installModel(request: InstallRequest): Promise<string> {
  const { entry, modelsDir } = request
  await mkdir(stagingDir(modelsDir), { recursive: true })
  const work = await mkdtemp(path.join(stagingDir(modelsDir), `${entry.id}+`))
  try {
    const unpacked = path.join(work, 'unpacked')
    await mkdir(unpacked)
    if (entry.archive === 'onnx')
      await copyFile(request.archivePath, path.join(unpacked, entry.files[0] ?? 'model'))
    else await extractArchive(entry.archive, request.archivePath, unpacked, request.signal)
    const root = await archiveRoot(unpacked)
    const files = await checkFiles(entry, root)
    const manifest: InstallManifest = {
      id: entry.id,
      sha256: request.archive.sha256,
      sha256Verified: request.archive.sha256Verified,
      source: request.archive.source,
      archiveBytes: request.archive.sizeBytes,
      installedAt: new Date().toISOString(),
      files,
    }
    await writeFile(path.join(root, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`)
    request.signal?.throwIfAborted()
    const target = path.join(modelsDir, entry.id)
    await swapIntoPlace(root, target, path.join(work, 'previous'))
    return target
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}

/** Archives usually hold one folder named after them: its content is the model. */
async function archiveRoot(unpacked: string): Promise<string> {
  const entries = await readdir(unpacked, { withFileTypes: true })
  const only = entries.length === 1 ? entries[0] : undefined
  return only?.isDirectory() ? path.join(unpacked, only.name) : unpacked
}

/** Every catalog file must be a regular file of the known size; returns their sizes. */
async function checkFiles(entry: CatalogEntry, root: string): Promise<Record<string, number>> {
  const sizes: Record<string, number> = {}
  const problems: string[] = []
  for (const file of entry.files) {
    const info = await stat(path.join(root, file)).catch(() => null)
    if (!info?.isFile()) {
      problems.push(`${file} is missing`)
      continue
    }
    sizes[file] = info.size
    problems.push(...(await fileCheckProblems(entry, root, file, info.size)))
  }
  if (problems.length > 0)
    throw errors.MODEL_INVALID(`${entry.id}: the archive is not as expected: ${problems.join('; ')}`)
  return sizes
}

/** Differences between one installed file and what the catalog knows about it (size, digest). */
export async function fileCheckProblems(
  entry: CatalogEntry,
  root: string,
  file: string,
  size: number,
): Promise<string[]> {
  const check = entry.fileChecks?.[file]
  if (check?.sizeBytes !== undefined && check.sizeBytes !== size) {
    return [`${file} has ${size} bytes, expected ${check.sizeBytes}`]
  }
  if (check?.sha256 !== undefined) {
    const hash = createHash('sha256')
    for await (const chunk of createReadStream(path.join(root, file))) hash.update(chunk as Buffer)
    const digest = hash.digest('hex')
    if (digest !== check.sha256) return [`${file} has SHA-256 ${digest}, expected ${check.sha256}`]
  }
  return []
}

/** Moves the new folder in; an old install is moved aside first and put back if the move fails. */
async function swapIntoPlace(source: string, target: string, aside: string): Promise<void> {
  let hadPrevious = false
  try {
    await rename(target, aside)
    hadPrevious = true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  try {
    await rename(source, target)
  } catch (error) {
    if (hadPrevious) await rename(aside, target)
    throw error
  }
}
