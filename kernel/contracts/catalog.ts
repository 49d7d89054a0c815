/**
 * The public contract of a catalog model: a model dictum can download, check and install for an engine
 * (`dictum models pull <id>`, `GET /v1/models`, config `models.autoPull`). An engine ships its models in
 * {@link EngineDefinition.catalog}; the model manager serves the entries of every discovered engine.
 *
 * What an engine needs to load a model (file roles, model type, graph kind…) is the engine's own business:
 * it travels in `hints`, typed by the engine (`CatalogEntry<MyHints>`), and dictum never reads it.
 */

/** How the download is packed: an archive with one top-level folder, or a single model file. */
export type ArchiveKind = 'tar.bz2' | 'zip' | 'onnx'

/** What is known about one important file of an installed model (checked by install and `verify`). */
export interface FileCheck {
  sizeBytes?: number
  sha256?: string
}

export interface CatalogEntry<H = unknown> {
  /** Stable id used by the CLI, the API and config (`[a-z0-9][a-z0-9._-]*`), unique across all engines. */
  id: string
  /** Id of the engine that runs the model (the definition's `id`; `vad` for the voice activity detector). */
  engine: string
  /** The engine's name for the kind of model (e.g. `whisper`, `vosk`), shown by `dictum models list`. */
  family: string
  displayName: string
  /** ISO 639 codes the model transcribes; `[]` for a model that transcribes nothing (VAD). */
  languages: string[]
  /** Download URL: https (http only on a loopback host, for local serving). */
  url: string
  archive: ArchiveKind
  /** Size of the download in bytes (for display and disk-space estimates; the checksum is the real check). */
  sizeBytes: number
  /** False when `sizeBytes` is a rounded figure from the upstream docs rather than the exact asset size. */
  sizeExact: boolean
  /**
   * SHA-256 of the download, or null where no public source states it. With null, a pull records the digest
   * it computed in the install manifest (trust on first use) and `verify` checks sizes only.
   */
  sha256: string | null
  /** Where `sha256` comes from (or why it is null). */
  checksumSource: string
  /** Files that must exist after install, relative to the model folder (`<modelsDir>/<id>/`). */
  files: string[]
  /** Sizes / digests of some of `files`, where public sources state them. */
  fileChecks?: Record<string, FileCheck>
  /** True when the model can bias recognition towards the dictionary's custom words. */
  customWords: boolean
  license: string
  notes?: string
  /** What the engine needs to load the model (file roles, settings); opaque to dictum. */
  hints?: H
}

export type Catalog = readonly CatalogEntry[]

const ID_PATTERN = /^[a-z0-9][a-z0-9._-]*$/
const SHA256_PATTERN = /^[0-9a-f]{64}$/
const ARCHIVES: readonly string[] = ['tar.bz2', 'zip', 'onnx']
const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', 'localhost', '[::1]']

/** True when a relative path stays inside its folder (no absolute paths, no `..`). */
export function isSafeRelativePath(relative: string): boolean {
  if (relative.length === 0 || relative.startsWith('/') || relative.includes('\\')) return false
  return relative.split('/').every((part) => part !== '..' && part !== '')
}

/**
 * Every problem of a catalog (empty when it is well-formed): what any entry of any engine must satisfy.
 * Checks of an engine's own `hints` are the engine's (the built-in ones export theirs beside their entries).
 */
export function catalogProblems(catalog: readonly CatalogEntry[]): string[] {
  const problems: string[] = []
  const seen = new Set<string>()
  for (const entry of catalog) {
    if (seen.has(entry.id)) problems.push(`duplicate id ${entry.id}`)
    seen.add(entry.id)
    problems.push(...entryProblems(entry).map((problem) => `${entry.id}: ${problem}`))
  }
  return problems
}

function entryProblems(entry: CatalogEntry): string[] {
  const problems: string[] = []
  if (typeof entry.id !== 'string' || !ID_PATTERN.test(entry.id))
    problems.push('id must match [a-z0-9][a-z0-9._-]*')
  if (typeof entry.engine !== 'string' || entry.engine === '') problems.push('engine must be an engine id')
  if (typeof entry.family !== 'string' || entry.family === '') problems.push('family must be a string')
  if (typeof entry.displayName !== 'string' || entry.displayName === '')
    problems.push('displayName must be a string')
  if (!Array.isArray(entry.languages) || !entry.languages.every((code) => typeof code === 'string'))
    problems.push('languages must be a list of language codes')
  for (const key of ['sizeExact', 'customWords'] as const)
    if (typeof entry[key] !== 'boolean') problems.push(`${key} must be true or false`)
  for (const key of ['checksumSource', 'license'] as const)
    if (typeof entry[key] !== 'string') problems.push(`${key} must be a string`)
  problems.push(...urlProblems(entry.url))
  if (!ARCHIVES.includes(entry.archive)) problems.push(`archive must be one of ${ARCHIVES.join(', ')}`)
  if (!Number.isInteger(entry.sizeBytes) || entry.sizeBytes <= 0) problems.push('sizeBytes must be positive')
  if (entry.sha256 !== null && !SHA256_PATTERN.test(String(entry.sha256)))
    problems.push('sha256 must be 64 hex digits')
  if (!Array.isArray(entry.files) || entry.files.length === 0) problems.push('files must not be empty')
  for (const file of Array.isArray(entry.files) ? entry.files : [])
    if (typeof file !== 'string' || !isSafeRelativePath(file)) problems.push(`unsafe file path ${file}`)
  if (entry.archive === 'onnx' && entry.files?.length !== 1)
    problems.push('a single-file model lists one file')
  for (const [file, check] of Object.entries(entry.fileChecks ?? {})) {
    if (!entry.files?.includes(file)) problems.push(`fileChecks names ${file}, which is not in files`)
    if (check.sha256 !== undefined && !SHA256_PATTERN.test(check.sha256))
      problems.push(`bad sha256 for ${file}`)
  }
  return problems
}

function urlProblems(url: unknown): string[] {
  let parsed: URL
  try {
    parsed = new URL(String(url))
  } catch {
    return ['url must be https']
  }
  if (parsed.protocol === 'https:') return []
  if (parsed.protocol === 'http:' && LOOPBACK_HOSTS.includes(parsed.hostname)) return []
  return ['url must be https (http only on a loopback host)']
}
