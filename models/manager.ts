/**
 * The model manager: what is in the catalog, what is installed under `<modelsDir>`, and pulling (download or
 * local archive → checksum → atomic install), removing and verifying models. Used by the CLI
 * (`dictum models …`), by `GET /v1/models`, and by `models.autoPull` through `ensure`.
 *
 * Layout of `<modelsDir>`: `<id>/` installed models (each with `.dictum-model.json`), `.partial/` resumable
 * downloads and pull locks, `.staging/` unpacking in progress (only ever left behind by a crash).
 */
import { lstat, mkdir, readFile, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { type DictumError, errors } from '../errors/catalogue.ts'
import type { Catalog, CatalogEntry } from '../kernel/contracts/catalog.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import { redactUrl } from '../lib/http-client.ts'
import { archiveFileName, findEntry } from './catalog.ts'
import { checkFreeSpace, spaceNeeded } from './disk-space.ts'
import { DEFAULT_RETRY, downloadFile, type RetryPolicy, removePart } from './download.ts'
import {
  fileCheckProblems,
  type InstallManifest,
  installModel,
  MANIFEST_FILE,
  stagingDir,
} from './install.ts'
import { checkLocalArchive, isRemoteSource } from './local-archive.ts'
import type { DownloadProgress } from './progress-meter.ts'
import { acquirePullLock } from './pull-lock.ts'
import { SingleFlight } from './single-flight.ts'
import { diskUsage, partialDir, removeStale } from './stale.ts'

export interface ModelManagerOptions {
  modelsDir: string
  logger: PluginLogger
  /** Replaces the global fetch (tests, proxies). */
  fetch?: typeof fetch | undefined
  /** The models it serves: `modelCatalog(discovery.engines.values())` (models/catalog.ts), or a test's own. */
  catalog: Catalog
  /** Base URL serving the catalog's archives by file name (config `models.mirror`). */
  mirror?: string | null | undefined
  retry?: RetryPolicy | undefined
  /** Partial downloads untouched for longer are deleted by `cleanupStale` (default 7 days). */
  partialMaxAgeMs?: number | undefined
}

export interface ModelListItem {
  entry: CatalogEntry
  installed: boolean
  path: string | null
  sizeOnDisk: number | null
}

/**
 * What a pull is doing: `download` (bytes arriving, or a local archive being read), `verify` (the archive's
 * SHA-256 checked against the catalog), `extract` (unpacking, the files checked, the folder moved into place).
 */
export type PullPhase = 'download' | 'verify' | 'extract'

/** A pull's progress: its phase and the archive's bytes (in `verify` and `extract`: all of them). */
export interface PullProgress extends DownloadProgress {
  phase: PullPhase
}

export type PullProgressListener = (progress: PullProgress) => void

export interface PullOptions {
  /** A mirror URL or a local archive (path or `file:` URL) instead of the catalog URL. */
  from?: string | undefined
  onProgress?: PullProgressListener | undefined
  signal?: AbortSignal | undefined
}

export type VerifyResult = { ok: true } | { ok: false; problems: string[] }

interface ObtainedArchive {
  path: string
  sha256: string
  sizeBytes: number
  source: string
  /** True for a `.part` download this pull owns (deleted after install). */
  isPart: boolean
}

const WEEK_MS = 7 * 24 * 3600 * 1000

export class ModelManager {
  readonly modelsDir: string
  readonly catalog: Catalog
  readonly #logger: PluginLogger
  readonly #fetch: typeof fetch | undefined
  readonly #mirror: string | null
  readonly #retry: RetryPolicy
  readonly #partialMaxAgeMs: number
  readonly #pulls = new SingleFlight<string, PullProgress>()
  /** Set once the manager is closed: why a pull fails from then on. */
  #stopped: DictumError | null = null

  constructor(options: ModelManagerOptions) {
    this.modelsDir = path.resolve(options.modelsDir)
    this.catalog = options.catalog
    this.#logger = options.logger
    this.#fetch = options.fetch
    this.#mirror = options.mirror ?? null
    this.#retry = options.retry ?? DEFAULT_RETRY
    this.#partialMaxAgeMs = options.partialMaxAgeMs ?? WEEK_MS
  }

  /** The catalog entry, or throws MODEL_NOT_FOUND. */
  get(id: string): CatalogEntry {
    return findEntry(this.catalog, id)
  }

  /** Where the model is (or would be) installed. */
  pathOf(id: string): string {
    return path.join(this.modelsDir, this.get(id).id)
  }

  /** Installed means the folder exists with every catalog file in it. */
  async isInstalled(id: string): Promise<boolean> {
    const entry = this.get(id)
    const folder = this.pathOf(id)
    for (const file of entry.files) {
      const info = await stat(path.join(folder, file)).catch(() => null)
      if (!info?.isFile()) return false
    }
    return true
  }

  async list(): Promise<ModelListItem[]> {
    const items: ModelListItem[] = []
    for (const entry of this.catalog) {
      const installed = await this.isInstalled(entry.id)
      const folder = installed ? this.pathOf(entry.id) : null
      items.push({ entry, installed, path: folder, sizeOnDisk: folder ? await diskUsage(folder) : null })
    }
    return items
  }

  /** True while a pull of the model runs in this process (a new pull of it joins that one). */
  isPulling(id: string): boolean {
    return this.#pulls.has(id)
  }

  /**
   * Downloads (or takes `from`), checks and installs the model; returns its folder. Parallel pulls share one:
   * a caller that joins gets the last progress report at once, then the rest.
   */
  pull(id: string, options: PullOptions = {}): Promise<string> {
    let entry: CatalogEntry
    try {
      entry = this.get(id)
    } catch (error) {
      return Promise.reject(error)
    }
    if (this.#stopped) return Promise.reject(this.#stopped)
    const task = (signal: AbortSignal, emit: PullProgressListener) =>
      this.#runPull(entry, options.from, emit, signal)
    return this.#pulls
      .run(entry.id, task, { onProgress: options.onProgress, signal: options.signal })
      .catch((error: unknown) => {
        // A pull the stop cut off says so, whatever its download failed with on the way out.
        throw this.#stopped ?? error
      })
  }

  /**
   * The folder of an installed model; with `autoPull` a missing model is pulled first, otherwise
   * MODEL_NOT_INSTALLED says how to install it.
   */
  async ensure(id: string, options: PullOptions & { autoPull: boolean }): Promise<string> {
    if (await this.isInstalled(id)) return this.pathOf(id)
    if (options.autoPull) return this.pull(id, options)
    throw errors.MODEL_NOT_INSTALLED(
      `${id}. Run \`dictum models pull ${id}\`, or set models.autoPull to true.`,
      {
        extra: { fix: `dictum models pull ${id}` },
      },
    )
  }

  /** Deletes an installed model; false when it was not installed. */
  async remove(id: string): Promise<boolean> {
    const folder = this.pathOf(id)
    if (!(await lstat(folder).catch(() => null))) return false
    await mkdir(stagingDir(this.modelsDir), { recursive: true })
    // Renamed away first, so the model disappears at once even if deleting its files takes a while.
    const doomed = path.join(stagingDir(this.modelsDir), `${id}+removed-${process.pid}-${Date.now()}`)
    await rename(folder, doomed)
    await rm(doomed, { recursive: true, force: true })
    this.#logger.info({ model: id }, 'model removed')
    return true
  }

  /** Checks an installed model: every file present, sizes as installed and as the catalog knows them. */
  async verify(id: string): Promise<VerifyResult> {
    const entry = this.get(id)
    const folder = this.pathOf(id)
    if (!(await stat(folder).catch(() => null))?.isDirectory())
      return { ok: false, problems: [`${id} is not installed`] }
    const manifest = await this.readManifest(id)
    const problems: string[] = []
    for (const file of entry.files) {
      const info = await stat(path.join(folder, file)).catch(() => null)
      if (!info?.isFile()) {
        problems.push(`${file} is missing`)
        continue
      }
      const installedSize = manifest?.files[file]
      if (installedSize !== undefined && installedSize !== info.size) {
        problems.push(`${file} has ${info.size} bytes, it had ${installedSize} when installed`)
      }
      problems.push(...(await fileCheckProblems(entry, folder, file, info.size)))
    }
    return problems.length === 0 ? { ok: true } : { ok: false, problems }
  }

  /** The install manifest of a model, or null (not installed, or installed by hand). */
  async readManifest(id: string): Promise<InstallManifest | null> {
    try {
      return JSON.parse(await readFile(path.join(this.pathOf(id), MANIFEST_FILE), 'utf8')) as InstallManifest
    } catch {
      return null
    }
  }

  /**
   * Removes what a crash left behind: staging folders and dead locks, plus partial downloads of unknown models
   * or older than `partialMaxAgeMs` (recent ones are kept so the next pull resumes them). Anything a live
   * pull (this process or another) is working on is left alone. Returns the removed paths.
   */
  async cleanupStale(): Promise<string[]> {
    const removed = await removeStale({
      modelsDir: this.modelsDir,
      catalog: this.catalog,
      partialMaxAgeMs: this.#partialMaxAgeMs,
      pullingHere: (id) => this.#pulls.has(id),
    })
    if (removed.length > 0) this.#logger.info({ removed }, 'removed leftovers of interrupted model pulls')
    return removed
  }

  /**
   * Aborts running pulls (their partial downloads stay for a later resume); they, and any pull asked for
   * afterwards, fail with MODEL_PULL_INTERRUPTED. The service calls it as soon as it begins to stop, so
   * that each pull's client gets that as its last event while the connection is still open.
   */
  async close(): Promise<void> {
    this.#stopped ??= errors.MODEL_PULL_INTERRUPTED(
      'the service is stopping. Pull again once it runs: the download resumes where it stopped.',
    )
    await this.#pulls.close()
  }

  /** Where a pull would take the model from, fit to show (URL without credentials or query, or a path). */
  sourceOf(id: string, from?: string): string {
    const entry = this.get(id)
    if (from !== undefined && !isRemoteSource(from)) return from
    return redactUrl(from ?? this.#defaultUrl(entry))
  }

  /** `<modelsDir>/.partial/<id>.<archive>.part` */
  partPath(entry: CatalogEntry): string {
    return path.join(this.#partialDir(), `${entry.id}.${entry.archive}.part`)
  }

  #partialDir(): string {
    return partialDir(this.modelsDir)
  }

  async #runPull(
    entry: CatalogEntry,
    from: string | undefined,
    emit: PullProgressListener,
    signal: AbortSignal,
  ) {
    await mkdir(this.#partialDir(), { recursive: true })
    const lock = await acquirePullLock(this.#partialDir(), entry.id)
    try {
      const downloading = from === undefined || isRemoteSource(from)
      const already = downloading ? ((await stat(this.partPath(entry)).catch(() => null))?.size ?? 0) : 0
      await checkFreeSpace(this.modelsDir, entry, spaceNeeded(entry, already, downloading))
      const archive = await this.#obtainArchive(entry, from, emit, signal)
      emit(whole('extract', archive.sizeBytes))
      let keepPart = false
      try {
        const target = await installModel({
          entry,
          archivePath: archive.path,
          modelsDir: this.modelsDir,
          archive: {
            sha256: archive.sha256,
            sha256Verified: entry.sha256 !== null,
            source: archive.source,
            sizeBytes: archive.sizeBytes,
          },
          signal,
        })
        const trust = entry.sha256 === null ? 'recorded (trust on first use)' : 'verified'
        this.#logger.info(
          { model: entry.id, source: archive.source, sha256: archive.sha256 },
          `model installed, checksum ${trust}`,
        )
        return target
      } catch (error) {
        // An interrupted install keeps the complete download: the next pull only unpacks it again.
        keepPart = signal.aborted
        throw error
      } finally {
        if (archive.isPart && !keepPart) await removePart(archive.path)
      }
    } finally {
      await lock.release()
    }
  }

  async #obtainArchive(
    entry: CatalogEntry,
    from: string | undefined,
    emit: PullProgressListener,
    signal: AbortSignal,
  ): Promise<ObtainedArchive> {
    const downloading = (progress: DownloadProgress) => emit({ phase: 'download', ...progress })
    const verifying = (bytes: number) => emit(whole('verify', bytes))
    if (from !== undefined && !isRemoteSource(from)) {
      const local = await checkLocalArchive({
        source: from,
        expectedSha256: entry.sha256,
        label: entry.id,
        onProgress: downloading,
        onVerify: verifying,
        signal,
      })
      return { ...local, source: 'file', isPart: false }
    }
    const url = from ?? this.#defaultUrl(entry)
    this.#logger.info({ model: entry.id, url: redactUrl(url) }, 'model download started')
    const result = await downloadFile({
      url,
      partPath: this.partPath(entry),
      expectedSha256: entry.sha256,
      label: entry.id,
      fetch: this.#fetch,
      signal,
      onProgress: downloading,
      onVerify: verifying,
      retry: this.#retry,
      logger: this.#logger,
    })
    return { ...result, source: redactUrl(url), isPart: true }
  }

  #defaultUrl(entry: CatalogEntry): string {
    if (this.#mirror === null) return entry.url
    return `${this.#mirror.replace(/\/+$/, '')}/${encodeURIComponent(archiveFileName(entry))}`
  }
}

/** A progress report of a phase that works on the whole archive. */
function whole(phase: PullPhase, bytes: number): PullProgress {
  return { phase, receivedBytes: bytes, totalBytes: bytes, bytesPerSecond: 0, etaSeconds: 0 }
}
