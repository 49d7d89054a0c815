/**
 * Errors of the OpenAI-compatible routes in OpenAI's shape, `{"error": {"message", "type", "param", "code"}}`,
 * so OpenAI client libraries raise their usual exceptions. The message and status are the catalogue's; `code`
 * is the catalogue code in lower case; `param` names the form field at fault, when one is.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { type DictumError, errors } from '../../errors/catalogue.ts'
import { toDictumError } from '../../http/error-handler.ts'

/** @fastify/multipart's errors, translated into the catalogue once. */
function multipartError(error: FastifyError): DictumError | null {
  switch (error.code) {
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return errors.REQUEST_TOO_LARGE()
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return errors.INVALID_REQUEST('send the audio as multipart/form-data with a "file" field.')
    case 'FST_PROTO_VIOLATION':
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return errors.INVALID_REQUEST(`${error.message}.`)
  }
  // busboy's own errors (truncated or malformed form) carry no code; a form cut off inside a file part
  // surfaces as that part's stream closing early (the whole body was received: the form itself is short).
  const truncated = error.code === 'ERR_STREAM_PREMATURE_CLOSE'
  if (
    truncated ||
    (!error.code && !error.statusCode && /multipart|boundary|Unexpected end of form/i.test(error.message))
  ) {
    return errors.INVALID_REQUEST('the multipart/form-data body is malformed.')
  }
  return null
}

export function openAiErrorBody(error: DictumError): { error: Record<string, unknown> } {
  const { param, ...extra } = error.extra ?? {}
  return {
    error: {
      message: error.message,
      type: error.statusCode >= 500 ? 'server_error' : 'invalid_request_error',
      param: typeof param === 'string' ? param : null,
      code: error.code.toLowerCase(),
      ...extra,
    },
  }
}

export function openAiErrorHandler(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const translated = multipartError(error as FastifyError) ?? toDictumError(error, request)
  if (translated.statusCode >= 500) request.log.error({ err: error }, 'request failed')
  else request.log.debug({ code: translated.code }, translated.message)
  if (translated.code === 'UNAUTHORIZED') reply.header('WWW-Authenticate', 'Bearer')
  return reply.code(translated.statusCode).send(openAiErrorBody(translated))
}
