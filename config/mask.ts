/** Masks secrets in a config before it is printed or logged. */

const SECRET_KEY = /(^|[^a-z])(token|api[-_]?key|apikey|secret|password|authorization)$/i

/** True for key names that hold secrets (`token`, `apiKey`, `api_key`, `secret`, `password`…). */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) || /^(apiKey|token|secret|password)$/i.test(key)
}

/** Credentials inside a URL: `scheme://user:password@`. */
const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi

/** `http://user:pass@host` becomes `http://***@host`, wherever in `text` a URL carries credentials. */
export function maskUrlCredentials(text: string): string {
  return text.replace(URL_USERINFO, '$1***@')
}

/**
 * A deep copy of `value` with every secret-named string replaced by `'***'`, every value of a `headers`
 * object too (they carry tokens: `Authorization`, `X-Api-Key`…), and the credentials of every URL
 * (`http://user:pass@host` becomes `http://***@host`).
 */
export function maskSecrets<T>(value: T, extraSecretKeys: readonly string[] = []): T {
  const extra = new Set(extraSecretKeys)
  const walk = (node: unknown, inHeaders = false): unknown => {
    if (typeof node === 'string') return inHeaders && node.length > 0 ? '***' : maskUrlCredentials(node)
    if (Array.isArray(node)) return node.map((child) => walk(child))
    if (node === null || typeof node !== 'object') return node
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(node)) {
      const secret = isSecretKey(key) || extra.has(key)
      out[key] =
        secret && typeof child === 'string' && child.length > 0 ? '***' : walk(child, key === 'headers')
    }
    return out
  }
  return walk(value) as T
}
