/**
 * The OpenAPI document kept in dictum's cache folder (`<cache>/openapi/`), so that a start after the first
 * answers `GET /v1/openapi.json` by reading a file instead of generating it (document.ts: ~100–150 ms of
 * modules and work, which the first request right after a start paid). A document is kept under its key
 * (documentKey: the routes and everything else it is made from), so a changed route, setting, dictum or
 * @fastify/swagger never finds an old one. One document per installed dictum: its name starts with a hash
 * of the package's folder, and writing one removes that folder's older ones.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { writeCacheFile } from '../../lib/cache-files.ts'
import { PACKAGE_ROOT } from '../../lib/package-root.ts'

export class StoredDocument {
  readonly #dir: string
  readonly #packageRoot: string
  #prefix: string | null = null

  /** `cacheDir`: dictum's cache folder (lib/cache-files.ts). */
  constructor(cacheDir: string, packageRoot: string = PACKAGE_ROOT) {
    this.#dir = path.join(cacheDir, 'openapi')
    this.#packageRoot = packageRoot
  }

  /** This install's files' prefix: hashed at first use, not while the server starts (node:crypto). */
  get #installPrefix(): string {
    this.#prefix ??= `${createHash('sha256').update(this.#packageRoot).digest('hex').slice(0, 12)}-`
    return this.#prefix
  }

  /** The file a document of this key is kept in. */
  fileOf(key: string): string {
    return path.join(this.#dir, `${this.#installPrefix}${key}.json`)
  }

  /** The document kept under `key`, or null (none, unreadable, or not a JSON object: made again). */
  read(key: string): string | null {
    let text: string
    try {
      text = readFileSync(this.fileOf(key), 'utf8')
    } catch {
      return null
    }
    // Written whole (renamed into place), so this only fails for a file damaged on disk.
    try {
      const parsed: unknown = JSON.parse(text)
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? text : null
    } catch {
      return null
    }
  }

  /** Keeps the document under `key`, replacing this install's earlier ones; false when it could not. */
  write(key: string, document: string): boolean {
    return writeCacheFile(this.fileOf(key), document, this.#installPrefix)
  }
}
