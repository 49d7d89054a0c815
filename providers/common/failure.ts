/**
 * Turns a vendor's non-2xx reply into one readable sentence in the provider's voice. The vendor's message is
 * read (and its secrets taken out) by the outbound-HTTP module.
 */
import { redactUrl, vendorMessage } from '../../sdk/plugin.ts'

/** Said by redactUrl instead of a `baseUrl` that is not a URL. */
export const BASE_URL_FALLBACK = 'the configured baseUrl'

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
  if (status === 404) {
    return `${head}: not found at ${redactUrl(failure.url, BASE_URL_FALLBACK)} (check baseUrl and model)`
  }
  if (status === 529 || status === 503) return `${head}: the service is overloaded or unavailable`
  if (status >= 500) return `${head}: server error`
  return `${head}: request rejected`
}
