/**
 * The API's TCP listener, opened and closed as config `api.enabled`, `api.host` and `api.port` say — also
 * while running, when a config edit changes them. Closing stops accepting and drops idle keep-alive sockets;
 * requests in flight finish, and each of their sockets closes as its last response ends (`Connection: close`),
 * instead of staying open until the client's keep-alive times out.
 */
import type { Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { DictumConfig } from '../config/schema.ts'
import { emitDraining } from '../http/draining.ts'
import { isLoopbackHostname } from '../http/guard.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'

type ApiConfig = DictumConfig['api']

export class ApiListener {
  readonly #server: Server
  readonly #logger: PluginLogger
  #bound: { host: string; port: number } | null = null
  /** Responses not yet finished, to mark `Connection: close` when closing starts. */
  readonly #inFlight = new Set<ServerResponse>()
  #closing = false

  constructor(server: Server, logger: PluginLogger) {
    this.#server = server
    this.#logger = logger
    // Before Fastify's own listener, so a request arriving while closing is marked before it is answered.
    server.prependListener('request', (_request, response: ServerResponse) => {
      if (this.#closing) lastResponse(response)
      this.#inFlight.add(response)
      response.once('close', () => this.#inFlight.delete(response))
    })
  }

  /** Requests being answered (for the shutdown log). */
  get inFlight(): number {
    return this.#inFlight.size
  }

  /** The address listened on, or null while closed. */
  get address(): { host: string; port: number } | null {
    return this.#bound
  }

  /** Opens, closes or rebinds to match `api`. */
  async apply(api: Readonly<ApiConfig>): Promise<void> {
    const wanted = api.enabled ? { host: api.host, port: api.port } : null
    const same =
      wanted !== null &&
      this.#bound !== null &&
      wanted.host === this.#bound.host &&
      (wanted.port === this.#bound.port || wanted.port === 0)
    if (same) return
    if (this.#bound) await this.close()
    if (wanted) await this.#open(wanted.host, wanted.port, api.token !== null)
  }

  async #open(host: string, port: number, hasToken: boolean): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => reject(listenError(err, host, port))
      this.#server.once('error', onError)
      this.#server.listen({ host, port }, () => {
        this.#server.off('error', onError)
        resolve()
      })
    })
    const address = this.#server.address() as AddressInfo
    this.#bound = { host, port: address.port }
    this.#logger.info({ url: `http://${formatHost(host)}:${address.port}` }, 'dictum API listening')
    if (!isLoopbackHostname(host.replace(/^\[|\]$/g, '')) && !hasToken) {
      this.#logger.warn(
        { host },
        'the API listens on a non-loopback address without api.token: anyone who can reach this port can use it',
      )
    }
  }

  /**
   * Stops accepting, drops idle keep-alive sockets, and closes every other socket as its last response ends.
   * Resolves once every socket is closed: as long as requests run, unless `closeAllConnections` cuts them.
   */
  async close(): Promise<void> {
    if (!this.#bound) return
    this.#bound = null
    this.#closing = true
    for (const response of this.#inFlight) lastResponse(response)
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()))
    this.#server.closeIdleConnections()
    emitDraining(this.#server)
    await closed
    this.#closing = false
    this.#logger.info({}, 'dictum API listener closed')
  }

  /** Destroys every socket, answered or not (the end of a shutdown's grace). */
  closeAllConnections(): void {
    this.#server.closeAllConnections()
  }
}

/** Node closes the socket once this response is sent, instead of keeping it alive for another request. */
function lastResponse(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('Connection', 'close')
}

const FIX_PORT = 'choose another with --port, DICTUM_PORT or api.port in the config file'

/** Why listening failed, with the fix, by error code; other errors are passed on as they are. */
const LISTEN_FAILURES: Record<string, (where: string) => string> = {
  EADDRINUSE: (where) =>
    `the port is already in use (another dictum? try GET http://${where}/v1/health); ${FIX_PORT}.`,
  EACCES: () => `permission denied (ports below 1024 need privileges); ${FIX_PORT}.`,
  EADDRNOTAVAIL: () =>
    'this machine has no such address; set --host, DICTUM_HOST or api.host to one of its addresses (127.0.0.1 for this machine only).',
}

/** EADDRINUSE and friends, said with the fix; other errors are left as they are. */
export function listenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  const reason = err.code ? LISTEN_FAILURES[err.code] : undefined
  if (!reason) return err
  const where = `${formatHost(host)}:${port}`
  return new Error(`cannot listen on ${where}: ${reason(where)}`, { cause: err })
}

function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}
