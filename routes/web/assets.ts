/**
 * The web app's files, read once and kept in memory with their gzip form and an ETag: the page's own files
 * (web/app/) and the two libraries it uses, Preact and htm, read from their installed packages (resolved as
 * Node resolves them, so the version in package.json is the version served; no CDN, no bundler). Every file is
 * served under `/app/<version>/`, where the version is a hash of all of them: a file's URL changes when any
 * file changes, so the browser may cache them for good, and only index.html is revalidated.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { contentTypeOf, etagOf, type MemoryFile } from '../../http/file-reply.ts'
import { PACKAGE_ROOT } from '../../lib/package-root.ts'

/** A file of the web app, kept with its gzip form. */
export type Asset = MemoryFile & { gzip: Buffer }

export interface WebAssets {
  /** The hash in every file's URL. */
  version: string
  /** index.html, with the version and the import map written in. */
  index: Asset
  /** By path under `/app/<version>/` (`main.js`, `vendor/preact.mjs`…). */
  files: ReadonlyMap<string, Asset>
  /** The CSP source of the inline import map (`'sha256-…'`): the only inline script, and not executable. */
  importMapHash: string
}

const APP_DIR = path.join(PACKAGE_ROOT, 'web/app')

/** Bare specifiers the page imports, and the file each is served as. */
const VENDOR: Record<string, string> = {
  preact: 'vendor/preact.mjs',
  'preact/hooks': 'vendor/hooks.mjs',
  htm: 'vendor/htm.mjs',
}

const EMPTY_IMPORT_MAP = '{"imports":{}}'

function asset(file: string, body: Buffer): Asset {
  const type = contentTypeOf(file)
  if (!type) throw new Error(`web app: no content type for ${file}`)
  return { type, body, gzip: gzipSync(body, { level: 9 }), etag: etagOf(body) }
}

/** Every file under `dir`, as paths relative to it (forward slashes). */
function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name
    return entry.isDirectory() ? listFiles(path.join(dir, entry.name), relative) : [relative]
  })
}

/** The file Node resolves a package specifier to (the packages' `exports`, as installed). */
function vendorFile(specifier: string): string {
  return fileURLToPath(import.meta.resolve(specifier))
}

export function loadWebAssets(): WebAssets {
  const sources = new Map<string, Buffer>()
  for (const file of listFiles(APP_DIR)) sources.set(file, readFileSync(path.join(APP_DIR, file)))
  for (const [specifier, file] of Object.entries(VENDOR))
    sources.set(file, readFileSync(vendorFile(specifier)))
  const template = sources.get('index.html')
  if (!template) throw new Error(`web app: ${APP_DIR}/index.html is missing`)
  sources.delete('index.html')

  const hash = createHash('sha256')
  for (const [file, body] of [...sources].sort(([a], [b]) => a.localeCompare(b)))
    hash.update(file).update(body)
  const version = hash.digest('hex').slice(0, 12)
  const base = `/app/${version}`

  const importMap = JSON.stringify({
    imports: Object.fromEntries(
      Object.entries(VENDOR).map(([specifier, file]) => [specifier, `${base}/${file}`]),
    ),
  })
  // The template's empty import map is where the real one goes (an empty one keeps the file valid HTML).
  const html = template
    .toString('utf8')
    .replaceAll('%BASE%', base)
    .replace(EMPTY_IMPORT_MAP, () => importMap)
  if (!html.includes(importMap)) throw new Error(`web app: index.html has no ${EMPTY_IMPORT_MAP} import map`)
  const importMapHash = `'sha256-${createHash('sha256').update(importMap).digest('base64')}'`

  const files = new Map<string, Asset>()
  for (const [file, body] of sources) files.set(file, asset(file, body))
  return { version, index: asset('index.html', Buffer.from(html)), files, importMapHash }
}
