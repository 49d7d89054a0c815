/**
 * The Wyoming server (Home Assistant's voice pipelines; docs/wyoming.md): a TCP listener opened and closed
 * as config `wyoming.enabled`, `wyoming.host` and `wyoming.port` say, by server/server.ts beside the HTTP
 * listener (also when a config edit changes them). Each connection is a {@link WyomingConnection} on the
 * app's live sessions. At most four connections per `realtime.maxSessions` are accepted (an idle client
 * holds a connection but no session); more are closed at once.
 */
import { createServer, type Server, type Socket } from 'node:net'
import type { DictumConfig } from '../config/schema.ts'
import type { DictumApp } from '../kernel/app.ts'
import { readVersion } from '../lib/version.ts'
import { WyomingConnection } from './connection.ts'

type WyomingConfig = DictumConfig['wyoming']

const CONNECTIONS_PER_SESSION = 4

export class WyomingServer {
  readonly #app: DictumApp
  #server: Server | null = null
  #bound: { host: string; port: number } | null = null
  readonly #connections = new Set<WyomingConnection>()

  constructor(app: DictumApp) {
    this.#app = app
  }

  /** The address listened on, or null while closed. */
  get address(): { host: string; port: number } | null {
    return this.#bound
  }

  /** Opens, closes or rebinds to match `wyoming`. */
  async apply(wyoming: Readonly<WyomingConfig>): Promise<void> {
    const wanted = wyoming.enabled ? { host: wyoming.host, port: wyoming.port } : null
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
    server.maxConnections = CONNECTIONS_PER_SESSION * configStore.current.realtime.maxSessions
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
