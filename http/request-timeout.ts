/**
 * How long a request may take to arrive (`api.requestTimeoutMs`): Node's own request timeout, which answers
 * 408 through the client-error handler and closes the connection, so a client that stalls mid-upload frees
 * the body it sent. (Fastify turns Node's timeout off by default: stalled uploads stayed open for good.)
 * Applied at start and on every config edit.
 */
import type { Server } from 'node:http'
import type { DictumConfig } from '../config/schema.ts'

/**
 * How often Node looks for requests over their time. Its default, 30 s, would let a 1 s timeout run 31 s;
 * a check walks the open connections only, once a second.
 */
export const TIMEOUT_CHECK_INTERVAL_MS = 1000

/** Node's own limit for the headers alone, kept within the request's. */
const HEADERS_TIMEOUT_MS = 60_000

export function applyRequestTimeout(server: Server, api: Readonly<DictumConfig['api']>): void {
  server.requestTimeout = api.requestTimeoutMs
  server.headersTimeout = Math.min(HEADERS_TIMEOUT_MS, api.requestTimeoutMs)
}
