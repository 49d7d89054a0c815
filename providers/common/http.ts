/**
 * One JSON POST to a vendor API through the outbound-HTTP module (time limit, the caller's AbortSignal,
 * bounded body), its failures turned into Errors that name the provider and say what went wrong, with every
 * secret redacted.
 */

import { fetchReply, OutboundFailure, type OutboundReply, redact, redactUrl } from '../../sdk/plugin.ts'
import { abortError, timeoutError } from './abort.ts'
import { BASE_URL_FALLBACK, describeHttpFailure } from './failure.ts'

export interface JsonPost {
  /** Provider id, first word of every error message. */
  provider: string
  url: string
  headers: Record<string, string>
  body: unknown
  timeoutMs: number
  signal: AbortSignal
  /** Values that must never appear in an error message (API keys). */
  secrets: string[]
  /** Said after a connection failure, e.g. "is Ollama running? (ollama serve)". */
  unreachableHint?: string
  /** Said after a 401 or 403, e.g. "set apiKey or ANTHROPIC_API_KEY". */
  authHint?: string
}

/** Sends the request and returns the parsed JSON reply of a 2xx response; throws a described Error otherwise. */
export async function postJson(request: JsonPost): Promise<unknown> {
  const { provider, signal } = request
  if (signal.aborted) throw abortError(provider, signal)
  let reply: OutboundReply
  try {
    reply = await fetchReply({
      url: request.url,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...request.headers },
      body: JSON.stringify(request.body),
      redirect: 'error',
      timeoutMs: request.timeoutMs,
      signal,
    })
  } catch (error) {
    throw failureError(request, error)
  }
  const { status, headers, text } = reply
  if (status < 200 || status > 299) {
    throw new Error(redact(describeHttpFailure({ ...request, status, headers, body: text }), request.secrets))
  }
  return parseJson(provider, text)
}

function failureError(request: JsonPost, error: unknown): unknown {
  if (!(error instanceof OutboundFailure)) return error
  const { provider } = request
  if (error.kind === 'timeout') return timeoutError(provider, request.timeoutMs)
  if (error.kind === 'aborted') return abortError(provider, request.signal)
  if (error.kind === 'too-large') return new Error(`${provider}: ${error.message}`)
  const hint = request.unreachableHint ? ` (${request.unreachableHint})` : ''
  const where = redactUrl(request.url, BASE_URL_FALLBACK)
  return new Error(redact(`${provider}: could not reach ${where}: ${error.message}${hint}`, request.secrets))
}

function parseJson(provider: string, text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    const kind = text.trim() === '' ? 'an empty body' : 'a body that is not JSON'
    throw new Error(`${provider}: malformed reply: the server sent ${kind}`)
  }
}
