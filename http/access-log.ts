/**
 * One log line per request at `info` (config `log.requests`, default on, read per request so an edit applies
 * live): method, path (no query string), status and time. Never a body, a header or a query value, so no key
 * or token can reach the log through it. It replaces Fastify's own request logging (two lines a request,
 * fixed when the app is built).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ConfigStore } from '../kernel/config-store.ts'

export function accessLog(configStore: ConfigStore) {
  return function logRequest(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    if (configStore.current.log.requests && infoEnabled(request.log)) {
      const query = request.url.indexOf('?')
      request.log.info(
        {
          reqId: request.id,
          method: request.method,
          path: query === -1 ? request.url : request.url.slice(0, query),
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
        },
        'request',
      )
    }
    done()
  }
}

/** pino's check (the line is not even built below `info`); a logger without one is asked anyway. */
function infoEnabled(log: FastifyRequest['log']): boolean {
  return (log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info') ?? true
}
