/**
 * One upload to an OpenAI-compatible `/audio/transcriptions` endpoint through the outbound-HTTP module
 * (multipart form, time limit, the caller's AbortSignal, bounded reply), and every failure turned into a catalogue error that names the server and the status,
 * with the API key redacted. Whether to try again is decided by the caller from {@link RemoteFailure}.
 */

import {
  type DictumError,
  errors,
  fetchReply,
  OutboundFailure,
  type OutboundReply,
  redact,
  vendorMessage,
} from '../../sdk/plugin.ts'
import { isRetryableStatus, retryAfterMs } from './retry.ts'

export interface Upload {
  url: string
  /** `host[:port]`, named by every error. */
  server: string
  apiKey: string | null
  /** Where the key comes from, said after a 401/403 (never the key itself). */
  keyHint: string
  form: FormData
  timeoutMs: number
}

/** A failed attempt: the error to report, and whether another attempt may succeed. */
export class RemoteFailure extends Error {
  readonly error: DictumError
  readonly retryable: boolean
  readonly retryAfterMs: number | null
  /** The server refused `response_format=verbose_json` (it answers json only). */
  readonly formatRejected: boolean

  constructor(
    error: DictumError,
    options: { retryable: boolean; retryAfterMs?: number | null; formatRejected?: boolean },
  ) {
    super(error.message)
    this.error = error
    this.retryable = options.retryable
    this.retryAfterMs = options.retryAfterMs ?? null
    this.formatRejected = options.formatRejected ?? false
  }
}

/** Network failures that a later attempt may not meet (the server restarting, a dropped keep-alive socket). */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
])

/** Posts the form and returns the parsed JSON body of a 2xx reply; throws RemoteFailure or the abort reason. */
export async function postTranscription(upload: Upload, signal: AbortSignal): Promise<unknown> {
  signal.throwIfAborted()
  const headers: Record<string, string> = { accept: 'application/json' }
  if (upload.apiKey) headers.authorization = `Bearer ${upload.apiKey}`
  let reply: OutboundReply
  try {
    reply = await fetchReply({
      url: upload.url,
      method: 'POST',
      headers,
      body: upload.form,
      timeoutMs: upload.timeoutMs,
      signal,
    })
  } catch (error) {
    throw outboundFailure(upload, signal, error)
  }
  if (reply.status < 200 || reply.status > 299) {
    throw httpFailure(upload, reply.status, reply.headers, reply.text)
  }
  return parseReply(upload, reply.text)
}

function outboundFailure(upload: Upload, signal: AbortSignal, error: unknown): unknown {
  if (!(error instanceof OutboundFailure)) return error
  if (error.kind === 'aborted') return signal.reason
  if (error.kind === 'timeout') {
    const detail = `${upload.server} sent no answer within ${upload.timeoutMs} ms.`
    return new RemoteFailure(errors.REMOTE_ENGINE_TIMEOUT(detail), { retryable: false })
  }
  if (error.kind === 'too-large') {
    return new RemoteFailure(failed(upload, `${upload.server} sent ${error.message}`), { retryable: false })
  }
  return networkFailure(upload, error)
}

function failed(upload: Upload, detail: string): DictumError {
  const secrets = upload.apiKey ? [upload.apiKey] : []
  const text = redact(detail.trim(), secrets)
  return errors.REMOTE_ENGINE_FAILED(/[.!?]$/.test(text) ? text : `${text}.`)
}

function httpFailure(upload: Upload, status: number, headers: Headers, body: string): RemoteFailure {
  const message = vendorMessage(body, upload.apiKey ? [upload.apiKey] : [])
  const auth =
    status === 401 || status === 403
      ? ` (${status === 401 ? 'authentication failed' : 'permission denied'}: check ${upload.keyHint})`
      : ''
  const detail = `${upload.server} answered HTTP ${status}${auth}${message ? `: ${message}` : ''}`
  const wait = status === 429 || status === 503 ? retryAfterMs(headers) : null
  return new RemoteFailure(failed(upload, detail), {
    retryable: isRetryableStatus(status),
    retryAfterMs: wait,
    formatRejected: status === 400 && /response_format|verbose_json/i.test(message),
  })
}

function networkFailure(upload: Upload, failure: OutboundFailure): RemoteFailure {
  const { code } = failure
  let detail: string
  if (code === 'ECONNREFUSED') detail = `${upload.server} is unreachable (connection refused): is it running?`
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    detail = `${upload.server} is unreachable (host name not found)`
  else detail = `the connection to ${upload.server} failed (${failure.message})`
  return new RemoteFailure(failed(upload, detail), { retryable: code !== null && TRANSIENT_CODES.has(code) })
}

function parseReply(upload: Upload, text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new RemoteFailure(failed(upload, `${upload.server} sent a reply that is not valid JSON`), {
      retryable: false,
    })
  }
}

/** A reply that parsed but is not a transcription. */
export function malformedReply(upload: Upload, what: string): RemoteFailure {
  return new RemoteFailure(failed(upload, `${upload.server} sent ${what}`), { retryable: false })
}
