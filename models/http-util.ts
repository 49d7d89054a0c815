/**
 * Small HTTP helpers of the downloader: header parsing and error texts fit to show (no credentials).
 */

/** Drops credentials and the query string (signed URLs carry tokens) before a URL reaches a message. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  } catch {
    return '(invalid URL)'
  }
}

export function parseContentRange(value: string | null): { start: number; total: number | null } | null {
  const match = value ? /^bytes (?:(\d+)-\d+|\*)\/(\d+|\*)$/.exec(value.trim()) : null
  if (!match) return null
  return {
    start: match[1] === undefined ? -1 : Number(match[1]),
    total: match[2] === '*' ? null : Number(match[2]),
  }
}

export function parseLength(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value)) return null
  return Number(value)
}

export function safeParse(url: string): URL | null {
  try {
    return new URL(url)
  } catch {
    return null
  }
}

export function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ''
  return `${error.message}${cause}`
}
