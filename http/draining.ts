/**
 * The API listener's signal that it stops accepting (a shutdown, or a config edit that closes or moves it),
 * emitted on the HTTP server. Requests end by themselves and their sockets close as their last response ends;
 * a long-lived connection that is no request any more (an upgraded WebSocket) is not one the listener can
 * finish, so its owner listens for this and closes it, instead of holding the drain until it ends.
 */
import type { Server } from 'node:http'

const DRAINING = 'dictum:draining'

export function emitDraining(server: Server): void {
  server.emit(DRAINING)
}

export function onDraining(server: Server, listener: () => void): void {
  server.on(DRAINING, listener)
}
