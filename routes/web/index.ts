/**
 * The web app (docs/web.md): `GET /` is the page, `GET /app/<version>/…` its files, all from memory
 * (routes/web/assets.ts). Behind the API's guard like every route (a loopback Host, no foreign Origin), but without the
 * token: a browser opening a page cannot send one, and these files hold no data; the page asks for the token
 * and sends it on its API requests. A strict Content-Security-Policy keeps the page to dictum's own files
 * and its own API (and the blob: URLs it plays recordings from); `web.enabled: false` answers 404 here, applied live.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { errors } from '../../errors/catalogue.ts'
import { sendFile } from '../../http/file-reply.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'
import { type Asset, loadWebAssets, type WebAssets } from './assets.ts'

/** Host header values a policy may name: loopback names and ports, brackets of IPv6. */
const PLAIN_HOST = /^[A-Za-z0-9.\-:[\]]{1,255}$/

/**
 * The page's policy. Scripts only from dictum (plus the import map's hash), no inline styles, fetch and the
 * WebSocket only to this host, never framed. `'self'` covers ws: of the same host in CSP 3; the explicit
 * `ws://<host>` is for browsers that do not apply it to WebSockets yet.
 */
export function contentSecurityPolicy(assets: WebAssets, host: string | undefined): string {
  const ws = host && PLAIN_HOST.test(host) ? ` ws://${host}` : ''
  return [
    "default-src 'self'",
    `script-src 'self' ${assets.importMapHash}`,
    "style-src 'self'",
    "img-src 'self' data:",
    // History plays a kept recording from a blob: URL (fetched with the token, which <audio> cannot send).
    "media-src 'self' blob:",
    `connect-src 'self'${ws}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** A file of the web app: only this origin may load it (not another site's page, even as an image). */
function send(request: FastifyRequest, reply: FastifyReply, asset: Asset, cacheControl: string) {
  reply.header('Cross-Origin-Resource-Policy', 'same-origin')
  return sendFile(request, reply, asset, cacheControl)
}

export const webRoutes = routePlugin('web', async (app) => {
  const { configStore } = app.dictum
  // Read at the first request or after listening (http/warm-up.ts), not at boot: most apps (tests, the
  // CLI) never serve the page.
  let assets: WebAssets | undefined
  const loaded = (): WebAssets => {
    assets ??= loadWebAssets()
    return assets
  }
  // `dictum serve` reads them once it listens, so that the page's first request does not.
  app.warmUp.add('the web app files', async () => loaded())
  const options = { schema: { hide: true }, config: { tokenFree: true } }

  app.get('/', options, async (request, reply) => {
    if (!configStore.current.web.enabled) throw errors.ROUTE_NOT_FOUND()
    const web = loaded()
    reply
      .header('Content-Security-Policy', contentSecurityPolicy(web, request.headers.host))
      .header('Referrer-Policy', 'no-referrer')
      .header('Cross-Origin-Opener-Policy', 'same-origin')
      .header('Permissions-Policy', 'microphone=(self), camera=(), geolocation=()')
      .header('X-Frame-Options', 'DENY')
    // Revalidated each time (a 304 when unchanged): it names the current version of every other file.
    return send(request, reply, web.index, 'no-cache')
  })

  app.get('/app/*', options, async (request, reply) => {
    if (!configStore.current.web.enabled) throw errors.ROUTE_NOT_FOUND()
    const web = loaded()
    const rest = (request.params as { '*': string })['*']
    const slash = rest.indexOf('/')
    const asset = rest.slice(0, slash) === web.version ? web.files.get(rest.slice(slash + 1)) : undefined
    if (!asset) throw errors.ROUTE_NOT_FOUND()
    // The version in the URL changes with any file: cache it for good.
    return send(request, reply, asset, 'public, max-age=31536000, immutable')
  })
})

export const webFeature: Feature = { name: 'web', routes: { prefix: '', plugin: webRoutes } }
