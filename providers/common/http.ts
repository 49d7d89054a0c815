/**
 * One JSON POST to a vendor API, with a timeout, the caller's AbortSignal, a bounded body and failures turned
 * into Errors that name the provider and say what went wrong, with every secret redacted.
 */
import { abortError, timeoutError } from './abort.ts'
import { describeHttpFailure, redact, safeUrl } from './failure.ts'

/** Replies larger than this are refused rather than buffered. */
const MAX_REPLY_BYTES = 8 * 1024 * 1024

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
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, request.timeoutMs)
  const onAbort = () => controller.abort()
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    const { status, headers, text } = await exchange(request, controller.signal)
    if (status < 200 || status > 299) {
      throw new Error(
        redact(describeHttpFailure({ ...request, status, headers, body: text }), request.secrets),
      )
    }
    return parseJson(provider, text)
  } catch (err) {
    if (timedOut) throw timeoutError(provider, request.timeoutMs)
    if (signal.aborted) throw abortError(provider, signal)
    throw err
  } finally {
    clearTimeout(timer)
    signal.removeEventListener('abort', onAbort)
  }
}

interface RawReply {
  status: number
  headers: Headers
  text: string
}

async function exchange(request: JsonPost, signal: AbortSignal): Promise<RawReply> {
  let response: Response
  try {
    response = await fetch(request.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...request.headers },
      body: JSON.stringify(request.body),
      signal,
      redirect: 'error',
    })
  } catch (err) {
    if (signal.aborted) throw err
    throw transportError(request, err)
  }
  const text = await readBounded(request.provider, response)
  return { status: response.status, headers: response.headers, text }
}

async function readBounded(provider: string, response: Response): Promise<string> {
  if (!response.body) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of response.body) {
    size += chunk.byteLength
    if (size > MAX_REPLY_BYTES) {
      await response.body.cancel().catch(() => {})
      throw new Error(`${provider}: the reply is larger than ${MAX_REPLY_BYTES / 1024 / 1024} MB`)
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function parseJson(provider: string, text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    const kind = text.trim() === '' ? 'an empty body' : 'a body that is not JSON'
    throw new Error(`${provider}: malformed reply: the server sent ${kind}`)
  }
}

function transportError(request: JsonPost, err: unknown): Error {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } })?.cause
  const code = typeof cause?.code === 'string' ? cause.code : undefined
  const reason = code ?? (typeof cause?.message === 'string' ? cause.message : (err as Error)?.message)
  const hint = request.unreachableHint ? ` (${request.unreachableHint})` : ''
  const message = `${request.provider}: could not reach ${safeUrl(request.url)}: ${reason ?? 'connection failed'}${hint}`
  return new Error(redact(message, request.secrets))
}
