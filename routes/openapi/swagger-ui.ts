/**
 * Swagger UI at /v1/docs: a page and the script that starts Swagger UI on this API's document (both
 * written here), and the files of the Swagger UI distribution that @fastify/swagger-ui ships in its
 * `static/` folder (its bundle, preset, styles and icons). Served from memory, each file read at its first
 * request and revalidated by its ETag, without @fastify/swagger-ui's plugin: that plugin needs
 * @fastify/swagger on the same app and @fastify/static, ~100 ms of modules before a first page. The page
 * asks for the document at /v1/docs/json, which the API answers from its kept document (index.ts).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { contentTypeOf, etagOf, type MemoryFile } from '../../http/file-reply.ts'

/** Where Swagger UI is. */
export const DOCS_PREFIX = '/v1/docs'
const STATIC_PREFIX = `${DOCS_PREFIX}/static`

/**
 * Swagger UI's files only: no inline script, the document and "Try it out" to this API only, images from
 * here or data: URLs (its icons), never framed. Inline styles are allowed: Swagger UI's bundle writes some
 * (refused, it logs a violation at each page).
 */
export const SWAGGER_UI_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>dictum API · Swagger UI</title>
<link rel="stylesheet" href="${STATIC_PREFIX}/swagger-ui.css">
<link rel="stylesheet" href="${STATIC_PREFIX}/index.css">
<link rel="icon" type="image/png" href="${STATIC_PREFIX}/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${STATIC_PREFIX}/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${STATIC_PREFIX}/swagger-ui-bundle.js"></script>
<script src="${STATIC_PREFIX}/swagger-ui-standalone-preset.js"></script>
<script src="${STATIC_PREFIX}/swagger-initializer.js"></script>
</body>
</html>
`

// The standalone layout with the URL bar, as Swagger UI's own distribution starts it; no validator badge
// (it would send the document to validator.swagger.io).
const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(`${DOCS_PREFIX}/json`)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
    validatorUrl: null,
  })
}
`

function uiFile(name: string, body: Buffer): MemoryFile {
  return { type: contentTypeOf(name) ?? 'application/octet-stream', body, etag: etagOf(body) }
}

/** Our own files are made at their first request too: hashing them for the ETag loads node:crypto. */
export class SwaggerUi {
  readonly #dir: string | undefined
  #names: Set<string> | null = null
  #page: MemoryFile | null = null
  readonly #files = new Map<string, MemoryFile>()

  /** `dir`: the distribution's folder (default: @fastify/swagger-ui's, found at the first file asked for). */
  constructor(dir?: string) {
    this.#dir = dir
  }

  /** The page at /v1/docs/. */
  get page(): MemoryFile {
    this.#page ??= uiFile('index.html', Buffer.from(PAGE))
    return this.#page
  }

  /**
   * The file `name` under /v1/docs/static/, or null when there is none: only the distribution's own file
   * names match, so no path leaves its folder. Swagger UI's own index.html is the page instead, and its
   * start script ours. Read at its first request (the bundle is 1.5 MB, read in ~10 ms), then kept.
   */
  file(name: string): MemoryFile | null {
    const kept = this.#files.get(name)
    if (kept) return kept
    let body: Buffer
    if (name === 'swagger-initializer.js') body = Buffer.from(INITIALIZER)
    else {
      const dir = this.#dir ?? distributionDir()
      this.#names ??= new Set(readdirSync(dir).filter((file) => file !== 'index.html'))
      if (!this.#names.has(name)) return null
      body = readFileSync(path.join(dir, name))
    }
    const file = uiFile(name, body)
    this.#files.set(name, file)
    return file
  }
}

/** @fastify/swagger-ui's `static/` folder, as Node resolves the package. */
function distributionDir(): string {
  const manifest = createRequire(import.meta.url).resolve('@fastify/swagger-ui/package.json')
  return path.join(path.dirname(manifest), 'static')
}
