/**
 * Turns a vendor's non-2xx reply into one readable sentence, and keeps secrets out of every message.
 * Vendors agree on the status codes but not on the body: Ollama sends `{"error": "..."}`, OpenAI-style servers
 * `{"error": {"message": "..."}}`, Anthropic `{"type": "error", "error": {"type": "...", "message": "..."}}`,
 * proxies and local servers sometimes `{"message": "..."}`, `{"detail": "..."}`, plain text or an HTML page.
 */
import { maskUrlCredentials } from '../../config/mask.ts'

const MAX_DETAIL = 300

export interface HttpFailure {
  provider: string
  url: string
  status: number
  headers: Headers
  body: string
  authHint?: string
  /** Secrets to take out of the vendor's message before it is shortened. */
  secrets?: string[]
}

export function describeHttpFailure(failure: HttpFailure): string {
  const { provider, status } = failure
  const detail = vendorMessage(failure.body, failure.secrets)
  const head = `${provider}: HTTP ${status}`
  if (status === 401 || status === 403) {
    const what = status === 401 ? 'authentication failed' : 'permission denied'
    const hint = failure.authHint ? ` (${failure.authHint})` : ''
    return `${head}: ${what}${hint}${detail ? `: ${detail}` : ''}`
  }
  if (status === 429) {
    const retry = failure.headers.get('retry-after')
    const after = retry && /^\d+$/.test(retry.trim()) ? `, retry after ${retry.trim()} s` : ''
    return `${head}: rate limited by the API${after}${detail ? `: ${detail}` : ''}`
  }
  if (detail) return `${head}: ${detail}`
  if (status === 404) return `${head}: not found at ${safeUrl(failure.url)} (check baseUrl and model)`
  if (status === 529 || status === 503) return `${head}: the service is overloaded or unavailable`
  if (status >= 500) return `${head}: server error`
  return `${head}: request rejected`
}

/**
 * The vendor's own error message, when the body carries one, collapsed to one short line. Secrets (and
 * anything shaped like a key) are taken out first: shortening first could cut a key in two and leave a part
 * of it that no longer looks like one.
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

/** Looks like an API key: `sk-…` (OpenAI, OpenRouter `sk-or-…`, Anthropic `sk-ant-…`), Groq `gsk_…`, xAI `xai-…`. */
const KEY_LIKE = /\b(?:sk|gsk|xai)[-_][A-Za-z0-9_-]{12,}/g

/**
 * Removes every configured secret, anything shaped like an API key, and the credentials of any URL
 * (`http://user:pass@host` becomes `http://***@host`) from a message.
 */
export function redact(message: string, secrets: readonly string[]): string {
  let out = message
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]')
  }
  return maskUrlCredentials(out.replace(KEY_LIKE, '[redacted]'))
}

/** The URL without credentials, query or fragment, fit for an error message. */
export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  } catch {
    return 'the configured baseUrl'
  }
}
