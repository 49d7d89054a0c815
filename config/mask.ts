/** Masks secrets in a config before it is printed or logged. */

const SECRET_KEY = /(^|[^a-z])(token|api[-_]?key|apikey|secret|password|authorization)$/i

/** True for key names that hold secrets (`token`, `apiKey`, `api_key`, `secret`, `password`…). */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) || /^(apiKey|token|secret|password)$/i.test(key)
}

/** A deep copy of `value` with every secret-named string replaced by `'***'`. */
export function maskSecrets<T>(value: T, extraSecretKeys: readonly string[] = []): T {
  const extra = new Set(extraSecretKeys)
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk)
    if (node === null || typeof node !== 'object') return node
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(node)) {
      const secret = isSecretKey(key) || extra.has(key)
      out[key] = secret && typeof child === 'string' && child.length > 0 ? '***' : walk(child)
    }
    return out
  }
  return walk(value) as T
}
