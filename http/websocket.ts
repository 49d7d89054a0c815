/**
 * WebSocket routes on the API's server, with `ws` (and its ~30 modules) loaded at the first upgrade or
 * after the API listens (http/warm-up.ts), not when `dictum serve` starts: what @fastify/websocket did for
 * dictum, whose `ws` server it made at registration. An upgrade request goes through the app like any
 * request (the guard, the route's preHandler), and only the route's handler upgrades it; a refused upgrade
 * gets its HTTP answer, after which its socket is closed.
 */
import { type IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ServerOptions, WebSocket, WebSocketServer } from 'ws'
import type { DictumApp } from './app.ts'
import { loadOnce } from './warm-up.ts'

const kUpgrade = Symbol('dictum.upgrade')

type UpgradeRequest = IncomingMessage & { [kUpgrade]?: { socket: Socket; head: Buffer } }

export interface WebSocketSetup {
  /** Options of the `ws` server, made once (`noServer`: the upgrades come from the API's server). */
  options: Omit<ServerOptions, 'noServer' | 'server' | 'port' | 'path' | 'maxPayload'>
  /** The largest frame accepted, read at each upgrade (a config edit applies to the next connection). */
  maxPayload: () => number
  /** An error of an open socket, or thrown by the route's handler: the handler of it ends the socket. */
  onError: (error: Error, socket: WebSocket, request: FastifyRequest) => void
}

export type WebSocketHandler<R extends FastifyRequest> = (socket: WebSocket, request: R) => void

/**
 * Sets up the upgrades of the app's server (call it in the plugin of the routes that take them) and returns
 * the handler maker of those routes: `upgrades(http, ws)` answers a plain request with `http` and hands an
 * upgraded socket to `ws`.
 */
export function websocketUpgrades(app: DictumApp, setup: WebSocketSetup) {
  const websocketServer = loadOnce(async (): Promise<WebSocketServer> => {
    const { WebSocketServer } = await import('ws')
    return new WebSocketServer({ ...setup.options, noServer: true })
  })
  app.warmUp.add('the WebSocket server', websocketServer)

  app.server.on('upgrade', (raw: UpgradeRequest, socket: Socket, head: Buffer) => {
    // Node removes its own error listener before 'upgrade': the socket stays guarded until ws takes it.
    socket.on('error', destroySocket)
    raw[kUpgrade] = { socket, head }
    const response = new ServerResponse(raw)
    try {
      response.assignSocket(socket)
      app.routing(raw, response)
    } catch (err) {
      app.log.warn({ error: (err as Error).message }, 'websocket upgrade failed')
    }
  })
  // An upgrade answered over HTTP (refused, or a plain route) keeps no socket: no HTTP keep-alive
  // handling would ever close it. (An upgraded request's reply is hijacked: this hook does not run for it.)
  app.addHook('onResponse', async (request) => {
    ;(request.raw as UpgradeRequest)[kUpgrade]?.socket.end()
  })

  return function upgrades<R extends FastifyRequest>(
    http: (request: R, reply: FastifyReply) => Promise<unknown>,
    ws: WebSocketHandler<R>,
  ) {
    return async (request: R, reply: FastifyReply) => {
      const upgrade = (request.raw as UpgradeRequest)[kUpgrade]
      if (!upgrade) return http(request, reply)
      reply.hijack()
      const wss = await websocketServer()
      wss.options.maxPayload = setup.maxPayload()
      upgrade.socket.removeListener('error', destroySocket)
      wss.handleUpgrade(request.raw, upgrade.socket, upgrade.head, (socket) => {
        socket.on('error', (error) => setup.onError(error, socket, request))
        try {
          ws(socket, request)
        } catch (err) {
          setup.onError(err as Error, socket, request)
        }
      })
    }
  }
}

function destroySocket(this: Socket): void {
  this.destroy()
}
