/**
 * Stops web pages from driving the local API (docs/api-decisions.md "Security"): the Host header must be a loopback
 * name (DNS rebinding), an Origin header must be a loopback origin or listed in `api.allowedOrigins`
 * (cross-site requests), and when `api.token` is set every request needs `Authorization: Bearer <token>`,
 * except `GET /v1/health`: supervisors (systemd, containers, load balancers) probe it without secrets, and it
 * reveals nothing but the version; nor do the web app's files (a browser cannot send a header when it opens
 * a page: the page asks for the token and sends it on its own requests). The Host/Origin checks still apply.
 *
 * Browsers cannot set headers on a WebSocket, so a WebSocket upgrade may carry the token as the subprotocol
 * OpenAI's browser clients use instead (`Sec-WebSocket-Protocol: realtime, openai-insecure-api-key.<token>`).
 */
import { timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { errors } from '../errors/catalogue.ts'
import type { ConfigStore } from '../kernel/config-store.ts'

const LOOPBACK_HOSTNAMES = new Set(['localhost', '::1', '[::1]'])

/** `localhost`, `*.localhost`, 127.0.0.0/8, ::1 (with or without brackets / port). */
export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  if (LOOPBACK_HOSTNAMES.has(name) || name.endsWith('.localhost')) return true
  return /^127(\.\d{1,3}){3}$/.test(name) && name.split('.').every((octet) => Number(octet) <= 255)
}

/** The host name of a Host header value (`[::1]:8080` -> `[::1]`, `example.com:80` -> `example.com`). */
export function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1)
  return host.split(':')[0] ?? ''
}

function originAllowed(origin: string, allowed: readonly string[]): boolean {
  if (allowed.includes(origin)) return true
  try {
    const url = new URL(origin)
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHostname(url.hostname)
  } catch {
    return false
  }
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '')
  return match !== null && sameToken(match[1]!.trim(), token)
}

/** The subprotocol that carries a browser's token on a WebSocket upgrade (OpenAI's name for it). */
export const TOKEN_SUBPROTOCOL_PREFIX = 'openai-insecure-api-key.'

/** The token offered as a subprotocol by a WebSocket upgrade, if any (never by a plain request). */
function subprotocolTokenMatches(request: FastifyRequest, token: string): boolean {
  const offered = request.headers['sec-websocket-protocol']
  if (offered === undefined || request.headers.upgrade?.toLowerCase() !== 'websocket') return false
  return offered
    .split(',')
    .map((protocol) => protocol.trim())
    .some(
      (p) =>
        p.startsWith(TOKEN_SUBPROTOCOL_PREFIX) && sameToken(p.slice(TOKEN_SUBPROTOCOL_PREFIX.length), token),
    )
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A GET answered without the token: static files that hold no data (the web app's). */
    tokenFree?: boolean
  }
}

/**
 * Routes answered without the token: the health check (the matched route, so `/v1/health?x` counts,
 * `/v1/healthz` not) and GETs of routes marked `tokenFree`.
 */
function isTokenFree(request: FastifyRequest): boolean {
  if (request.method !== 'GET') return false
  return request.routeOptions.url === '/v1/health' || request.routeOptions.config?.tokenFree === true
}

/** The onRequest hook (callback style: it runs on every request, so it avoids a promise per request). */
export function createGuard(configStore: ConfigStore) {
  // Host header values seen and whether they pass, for the api config they were judged under.
  let judged = new Map<string, boolean>()
  let judgedFor = configStore.current.api
  const hostAllowed = (host: string): boolean => {
    const api = configStore.current.api
    if (api !== judgedFor) {
      judged = new Map()
      judgedFor = api
    }
    let ok = judged.get(host)
    if (ok === undefined) {
      const hostname = hostnameOf(host)
      ok =
        isLoopbackHostname(hostname) || api.allowedHosts.includes(hostname) || api.allowedHosts.includes(host)
      if (judged.size < 256) judged.set(host, ok)
    }
    return ok
  }
  return function guard(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
    const api = configStore.current.api
    const origin = request.headers.origin
    let refused: Error | undefined
    if (!hostAllowed(request.headers.host ?? '')) refused = errors.FORBIDDEN_HOST()
    else if (origin !== undefined && !originAllowed(origin, api.allowedOrigins))
      refused = errors.FORBIDDEN_ORIGIN()
    else if (origin !== undefined) {
      reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin')
      if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
        // CORS preflight of an allowed origin: answered here, before routing (no route has OPTIONS).
        reply
          .header('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE')
          .header(
            'Access-Control-Allow-Headers',
            'Authorization, Content-Type, X-Filename, X-App-Name, X-Window-Title',
          )
          .header('Access-Control-Max-Age', '600')
          .code(204)
          .send()
        return
      }
    }
    if (
      !refused &&
      api.token !== null &&
      !isTokenFree(request) &&
      !tokenMatches(request.headers.authorization, api.token) &&
      !subprotocolTokenMatches(request, api.token)
    ) {
      reply.header('WWW-Authenticate', 'Bearer')
      refused = errors.UNAUTHORIZED()
    }
    done(refused)
  }
}
