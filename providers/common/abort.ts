/**
 * The two ways a provider request ends early. The kernel maps `name === 'TimeoutError'` to PROVIDER_TIMEOUT and
 * anything else to PROVIDER_FAILED.
 */

export function timeoutError(provider: string, timeoutMs: number): Error {
  const error = new Error(`${provider}: no reply within ${timeoutMs} ms (option timeoutMs)`)
  error.name = 'TimeoutError'
  return error
}

/** The caller aborted; a kernel timeout (a reason named TimeoutError) stays a timeout. */
export function abortError(provider: string, signal: AbortSignal): Error {
  const timeout = (signal.reason as { name?: unknown } | undefined)?.name === 'TimeoutError'
  const error = new Error(`${provider}: ${timeout ? 'timed out' : 'the request was aborted'}`)
  error.name = timeout ? 'TimeoutError' : 'AbortError'
  return error
}
