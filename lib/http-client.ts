/**
 * The one way dictum talks HTTP to other servers (AI providers, a remote transcription server, model
 * downloads): a time limit and the caller's AbortSignal, a bounded read of the body, one vocabulary for what
 * went wrong ({@link OutboundFailure}), the vendor's own message read from an error reply, and URLs fit to
 * show. Callers word the failures in their own voice (a provider names itself and says what a status means,
 * the remote engine answers with catalogue errors, a download retries).
 */
import { redact, redactError, redactUrl } from './secrets.ts'
import { timeLimit } from './timeout.ts'

/** Replies larger than this are refused rather than buffered. */
export const MAX_REPLY_BYTES = 8 * 1024 * 1024

export interface OutboundRequest {
  url: string
  method?: string
  headers?: Record<string, string>
  body?: RequestInit['body']
  redirect?: RequestInit['redirect']
  signal?: AbortSignal | undefined
  /** Another fetch (tests); the global one by default. */
  fetch?: typeof fetch | undefined
}

export interface OutboundExchange extends OutboundRequest {
  /** Time limit of the whole exchange, body included. */
  timeoutMs: number
  /** Largest body read; {@link MAX_REPLY_BYTES} by default. */
  maxBytes?: number
}

export interface OutboundReply {
  status: number
  headers: Headers
  /** The body, decoded as UTF-8. */
  text: string
}

/**
 * Why an exchange gave no reply: the time ran out, the caller aborted (`cause`: the signal's reason), the
 * network failed (`code`: `ECONNREFUSED`, `ENOTFOUND`… when the system said), or the body was too large.
 */
export class OutboundFailure extends Error {
  readonly kind: 'timeout' | 'aborted' | 'network' | 'too-large'
  readonly code: string | null

  constructor(
    kind: OutboundFailure['kind'],
    message: string,
    options: { code?: string | null; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'OutboundFailure'
    this.kind = kind
    this.code = options.code ?? null
  }
}

/**
 * Sends the request and returns the response as soon as its headers arrive (the caller streams the body).
 * A network failure is an OutboundFailure `network`; when the caller's signal aborted, fetch's own error.
 */
export async function openResponse(request: OutboundRequest): Promise<Response> {
  const doFetch = request.fetch ?? fetch
  try {
    return await doFetch(request.url, {
      method: request.method ?? 'GET',
      headers: request.headers ?? {},
      body: request.body ?? null,
      signal: request.signal ?? null,
      redirect: request.redirect ?? 'follow',
    })
  } catch (error) {
    if (request.signal?.aborted) throw error
    throw networkFailure(error)
  }
}

/** Sends the request and reads the whole (bounded) body within the time limit; throws OutboundFailure. */
export async function fetchReply(request: OutboundExchange): Promise<OutboundReply> {
  const limit = timeLimit(request.timeoutMs, { signal: request.signal })
  try {
    const response = await openResponse({ ...request, signal: limit.signal })
    const text = await readBounded(response, request.maxBytes ?? MAX_REPLY_BYTES, limit.signal)
    return { status: response.status, headers: response.headers, text }
  } catch (error) {
    if (limit.expired) {
      throw new OutboundFailure('timeout', `no reply within ${request.timeoutMs} ms`, { cause: error })
    }
    if (request.signal?.aborted) {
      throw new OutboundFailure('aborted', 'the request was aborted', { cause: request.signal.reason })
    }
    throw error
  } finally {
    limit.clear()
  }
}

/** Reads the body up to `maxBytes`; over it the body is cancelled and an OutboundFailure `too-large` thrown. */
export async function readBounded(
  response: Response,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<string> {
  if (!response.body) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for await (const chunk of response.body) {
      size += chunk.byteLength
      if (size > maxBytes) {
        await response.body.cancel().catch(() => {})
        throw new OutboundFailure('too-large', `the reply is larger than ${formatLimit(maxBytes)}`)
      }
      chunks.push(chunk)
    }
  } catch (error) {
    if (error instanceof OutboundFailure || signal?.aborted) throw error
    throw networkFailure(error)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** Cancels a body nobody will read, so the connection is released. */
export async function discardBody(response: Response): Promise<void> {
  try {
    await response.body?.cancel()
  } catch {
    // the connection may already be gone; nothing is left to release
  }
}

/**
 * A failure of fetch or of a body stream, described: the system's error code when there is one
 * (`ECONNREFUSED`), else the cause's message, else the error's own.
 */
export function networkFailure(error: unknown): OutboundFailure {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause
  const own = (error as { code?: unknown } | null)?.code
  const code = typeof cause?.code === 'string' ? cause.code : typeof own === 'string' ? own : null
  const message =
    code ??
    (typeof cause?.message === 'string'
      ? cause.message
      : error instanceof Error
        ? error.message
        : String(error))
  // undici quotes the URL in some messages ("…a URL that includes credentials: http://user:pass@…").
  return new OutboundFailure('network', redact(message) || 'connection failed', {
    code,
    cause: redactError(error),
  })
}

/** Kept here for the callers that know it from this module; it lives with the other redactions. */
export { redactUrl }

const MAX_DETAIL = 300

/**
 * The vendor's own error message, when the body carries one, collapsed to one short line. Vendors agree on
 * the status codes but not on the body: Ollama sends `{"error": "..."}`, OpenAI-style servers
 * `{"error": {"message": "..."}}`, Anthropic `{"type": "error", "error": {"type": "...", "message": "..."}}`,
 * proxies and local servers sometimes `{"message": "..."}`, `{"detail": "..."}`, plain text or an HTML page.
 * Secrets (and anything shaped like a key) are taken out first: shortening first could cut a key in two and
 * leave a part of it that no longer looks like one.
 */
export function vendorMessage(body: string, secrets: readonly string[] = []): string {
  const trimmed = body.trim()
  if (trimmed === '' || /^<(?:!doctype|html|\?xml)/i.test(trimmed)) return ''
  let found: string | undefined
  try {
    found = messageIn(JSON.parse(trimmed))
  } catch {
    found = trimmed
  }
  if (!found) return ''
  const line = redact(found.replace(/\s+/g, ' ').trim(), secrets)
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL)}…` : line
}

function messageIn(json: unknown): string | undefined {
  if (typeof json === 'string') return json
  if (!json || typeof json !== 'object') return undefined
  const record = json as Record<string, unknown>
  for (const key of ['error', 'message', 'detail', 'msg']) {
    const value = record[key]
    if (typeof value === 'string' && value.trim()) return value
    if (value && typeof value === 'object') {
      const nested = messageIn(value)
      if (nested) return nested
    }
  }
  return undefined
}

function formatLimit(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MB` : `${bytes} bytes`
}
