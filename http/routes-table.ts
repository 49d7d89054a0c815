/**
 * Remembers every route's URL pattern and methods, so an unmatched request can be told apart: a known path
 * with the wrong method is a 405 with `Allow`, anything else a 404 (docs/api-decisions.md "Errors").
 */
export class RoutesTable {
  readonly #routes: Array<{ pattern: RegExp; methods: Set<string> }> = []
  readonly #byUrl = new Map<string, Set<string>>()

  add(url: string, methods: string | string[]): void {
    const list = Array.isArray(methods) ? methods : [methods]
    let known = this.#byUrl.get(url)
    if (!known) {
      known = new Set()
      this.#byUrl.set(url, known)
      const source = url
        .split('/')
        .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/')
      this.#routes.push({ pattern: new RegExp(`^${source}$`), methods: known })
    }
    for (const method of list) known.add(method.toUpperCase())
  }

  /** The methods a path answers to (empty when the path is unknown). */
  allowed(path: string): string[] {
    const methods = new Set<string>()
    for (const route of this.#routes)
      if (route.pattern.test(path)) for (const m of route.methods) methods.add(m)
    return [...methods].sort()
  }
}
