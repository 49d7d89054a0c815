/**
 * Where every error becomes a response: catalogue errors as they are, Fastify's own errors translated into
 * the catalogue once, anything else a 500 whose body carries no stack trace or internal path.
 */
import type { Socket } from 'node:net'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import {
  type DictumError,
  type ErrorFactory,
  entryOf,
  errorBody,
  errors,
  isDictumError,
} from '../errors/catalogue.ts'
import { sqliteFailure } from '../storage/failures.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The error for a body that is not valid JSON on this route (its code's factory). */
    jsonError?: ErrorFactory
  }
}

export function toDictumError(error: FastifyError | Error, request: FastifyRequest): DictumError {
  if (isDictumError(error)) return error
  const fastifyError = error as FastifyError
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.REQUEST_TOO_LARGE()
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY': {
      const jsonError = request.routeOptions.config.jsonError
      return jsonError ? jsonError() : errors.INVALID_REQUEST('the body is not valid JSON.')
    }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.UNSUPPORTED_MEDIA_TYPE(String(request.headers['content-type'] ?? 'none'))
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errors.INVALID_REQUEST('the Content-Length header does not match the body.')
  }
  if (fastifyError.validation) return errors.INVALID_REQUEST(`${fastifyError.message}.`)
  // A read that met a locked or failing database (writes translate their own, see storage/write.ts).
  const stored = sqliteFailure(error)
  if (stored) return stored
  const status = fastifyError.statusCode ?? 500
  if (status >= 400 && status < 500)
    return errors.INVALID_REQUEST(`${fastifyError.message.replace(/\.$/, '')}.`)
  return errors.INTERNAL(undefined, { cause: error })
}

export function errorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const translated = toDictumError(error, request)
  const where = { reqId: request.id, method: request.method, url: request.url.split('?')[0] }
  if (translated.statusCode >= 500) request.log.error({ ...where, err: error }, 'request failed')
  else request.log.debug({ ...where, code: translated.code }, translated.message)
  const retryAfter = entryOf(translated.code)?.retryAfterSeconds
  if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter))
  return reply.code(translated.statusCode).send(errorBody(translated))
}

/**
 * An answer sent before the request's body was read to its end (too large, refused mid-form, no upload slot,
 * a form the parser gave up on) closes the connection: otherwise Node reads and discards the rest of the body
 * to keep the connection alive, and a client's next request on it waits behind a stalled body. An `onSend`
 * hook of the whole app, so every answer, success or error, of every route is covered.
 */
export async function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  // `complete` is Node's: the whole request was received (injected requests have none). A request without a
  // body may not be marked complete yet when a fast answer is sent: it has nothing unread, and closing its
  // keep-alive connection cost every GET a new connection (the kernel bench fell from 0.83 to 0.22).
  const hasBody =
    request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0
  if (hasBody && request.raw.complete === false) reply.header('Connection', 'close')
}

/**
 * Errors Fastify meets before routing (a URL it cannot decode…): dictum's shape, not Fastify's own body.
 * (Fastify's `frameworkErrors` option.)
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const translated =
    error.code === 'FST_ERR_BAD_URL'
      ? errors.INVALID_REQUEST('the URL is malformed (a bad percent-escape?).')
      : toDictumError(error, request)
  return reply.code(translated.statusCode).send(errorBody(translated))
}

/**
 * Requests Node's HTTP parser refuses (a malformed request line or header, headers too large, a request not
 * received in time) never reach Fastify: the answer is written to the socket here, in dictum's shape, and the
 * connection closed. (Fastify's `clientErrorHandler` option.)
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) return
  const failure =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? errors.HEADERS_TOO_LARGE()
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? errors.REQUEST_TIMEOUT()
        : errors.MALFORMED_REQUEST()
  const body = JSON.stringify(errorBody(failure))
  const reason = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }
  socket.end(
    `HTTP/1.1 ${failure.statusCode} ${reason[failure.statusCode as 400 | 408 | 431]}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  )
}
