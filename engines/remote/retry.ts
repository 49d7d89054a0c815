/** When to try a remote request again, and how long to wait first. */

/** Longest computed backoff; a server's own Retry-After may ask for more (up to `maxRetryAfterMs`). */
const MAX_BACKOFF_MS = 30_000

/** Statuses worth another try: the server is busy, overloaded or failed for a reason of its own. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500
}

/**
 * The wait a reply asks for: `retry-after-ms` (OpenAI), else `Retry-After` as seconds or as an HTTP date.
 * Null when it asks for nothing (or nothing readable).
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const ms = headers.get('retry-after-ms')?.trim()
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms))
  const value = headers.get('retry-after')?.trim()
  if (!value) return null
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}

/**
 * Exponential backoff with "equal jitter": half the doubled delay, plus a random share of the other half, so
 * clients that failed together do not come back together.
 */
export function backoffMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const full = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** attempt)
  return Math.round(full / 2 + random() * (full / 2))
}
