/** Header parsing of the downloader (the rest of its HTTP is kernel/http-client.ts). */

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
