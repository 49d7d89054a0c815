/**
 * The Wyoming server (Home Assistant's voice pipelines; docs/wyoming.md): a TCP listener opened and closed
 * as config `wyoming.enabled`, `wyoming.host` and `wyoming.port` say, by server/server.ts beside the HTTP
 * listener (also when a config edit changes them). Each connection is a {@link WyomingConnection} on the
 * app's live sessions. With `api.token` set it stays closed unless `wyoming.allowWithoutToken` (the
 * protocol has no authentication; config/wyoming-access.ts). At most `wyoming.maxConnections` connections,
 * and `wyoming.maxConnectionsPerClient` from one address, are open at once; one more gets a
 * `TOO_MANY_CONNECTIONS` error event and is closed.
 */
import { createServer, type Server, type Socket } from 'node:net'
import type { DictumConfig } from '../config/schema.ts'
import { wyomingAccess } from '../config/wyoming-access.ts'
import { errors } from '../errors/catalogue.ts'
import type { DictumApp } from '../http/app.ts'
import { readVersion } from '../lib/version.ts'
import { WyomingConnection } from './connection.ts'
import { encodeEvent } from './framing.ts'

/** A refused connection that does not read its error event is not waited for longer than this. */
const REFUSAL_GRACE_MS = 1000

export class WyomingServer {
  readonly #app: DictumApp
  #server: Server | null = null
  #bound: { host: string; port: number } | null = null
  readonly #connections = new Set<WyomingConnection>()
  /** Open connections by the client's address. */
  readonly #perClient = new Map<string, number>()
  /** The refusal last logged, so that a config edit elsewhere does not log it again. */
  #refusalLogged: string | null = null

  constructor(app: DictumApp) {
    this.#app = app
  }

  /** The address listened on, or null while closed. */
  get address(): { host: string; port: number } | null {
    return this.#bound
  }

  /** Connections open now (the bench and tests watch it). */
  get connections(): number {
    return this.#connections.size
  }

  /** Bytes written to clients and not yet taken by them, all connections together. */
  get unreadBytes(): number {
    let total = 0
    for (const connection of this.#connections) total += connection.unreadBytes
    return total
  }

  /** Opens, closes or rebinds to match `wyoming` (and `api.token`, which refuses it unless allowed). */
  async apply(config: Readonly<Pick<DictumConfig, 'api' | 'wyoming'>>): Promise<void> {
    const { wyoming } = config
    const access = wyomingAccess(config)
    if (access.reason !== null && access.reason !== this.#refusalLogged) {
      this.#app.log.warn({ reason: access.reason }, 'the Wyoming server is not started')
    }
    this.#refusalLogged = access.reason
    const wanted = access.state === 'enabled' ? { host: wyoming.host, port: wyoming.port } : null
    const bound = this.#bound
    if (wanted && bound && wanted.host === bound.host && (wanted.port === bound.port || wanted.port === 0))
      return
    if (bound) await this.close()
    if (wanted) await this.#open(wanted.host, wanted.port)
  }

  async #open(host: string, port: number): Promise<void> {
    const { live, engines, models, configStore } = this.#app.dictum
    const logger = this.#app.log
    const version = readVersion()
    const server = createServer((socket: Socket) => {
      if (!this.#admit(socket)) return
      const connection = new WyomingConnection(socket, {
        live,
        engines,
        models,
        configStore,
        logger,
        version,
      })
      this.#connections.add(connection)
      socket.once('close', () => this.#connections.delete(connection))
    })
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => reject(wyomingListenError(err, host, port)))
      server.listen({ host, port }, () => resolve())
    })
    server.on('error', (err) => logger.error({ error: err.message }, 'wyoming server error'))
    this.#server = server
    const address = server.address() as { port: number }
    this.#bound = { host, port: address.port }
    logger.info({ address: `tcp://${formatHost(host)}:${address.port}` }, 'dictum Wyoming server listening')
  }

  /** Counts a new connection against the caps, or refuses it with an error event and closes it. */
  #admit(socket: Socket): boolean {
    const { maxConnections, maxConnectionsPerClient } = this.#app.dictum.configStore.current.wyoming
    const client = socket.remoteAddress ?? ''
    const fromClient = this.#perClient.get(client) ?? 0
    const refusal =
      this.#connections.size >= maxConnections
        ? `at most ${maxConnections} Wyoming connections are open at a time (wyoming.maxConnections); retry in a moment.`
        : fromClient >= maxConnectionsPerClient
          ? `at most ${maxConnectionsPerClient} Wyoming connections from one address are open at a time (wyoming.maxConnectionsPerClient); retry in a moment.`
          : null
    if (refusal !== null) {
      const error = errors.TOO_MANY_CONNECTIONS(refusal)
      socket.on('error', () => {})
      socket.end(encodeEvent('error', { text: error.message, code: error.code }))
      setTimeout(() => socket.destroy(), REFUSAL_GRACE_MS).unref()
      return false
    }
    this.#perClient.set(client, fromClient + 1)
    socket.once('close', () => {
      const left = (this.#perClient.get(client) ?? 1) - 1
      if (left > 0) this.#perClient.set(client, left)
      else this.#perClient.delete(client)
    })
    return true
  }

  /**
   * Stops accepting and ends the connections between streams; a connection in the middle of a stream gets
   * `graceMs` to finish it, then every connection still open is closed (its session cancelled).
   */
  async close(graceMs = 5000): Promise<void> {
    const server = this.#server
    if (!server) return
    this.#server = null
    this.#bound = null
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    for (const connection of this.#connections) connection.endWhenIdle()
    const timer = setTimeout(() => {
      for (const connection of this.#connections) connection.destroy()
    }, graceMs)
    const poll = setInterval(() => {
      for (const connection of this.#connections) connection.endWhenIdle()
    }, 100)
    try {
      await closed
    } finally {
      clearTimeout(timer)
      clearInterval(poll)
    }
    this.#app.log.info({}, 'dictum Wyoming server closed')
  }
}

function wyomingListenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  if (err.code !== 'EADDRINUSE' && err.code !== 'EACCES' && err.code !== 'EADDRNOTAVAIL') return err
  const reason =
    err.code === 'EADDRINUSE'
      ? 'the port is already in use (another Wyoming server?)'
      : err.code === 'EACCES'
        ? 'permission denied (ports below 1024 need privileges)'
        : 'this machine has no such address'
  return new Error(
    `cannot open the Wyoming server on ${formatHost(host)}:${port}: ${reason}; set wyoming.host and wyoming.port in the config file.`,
    { cause: err },
  )
}

function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}
