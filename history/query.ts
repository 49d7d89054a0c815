/**
 * The query parameters of GET /v1/history and its export (docs/api.md): text search, app, time range and
 * cursor paging, checked strictly (400 INVALID_HISTORY_QUERY naming the parameter). `limit` keeps its
 * lenient rule (service.ts parseHistoryLimit).
 */

import { isWellFormedText } from '../lib/validate.ts'
import { historyErrors } from './errors.ts'

/** Which entries: every field optional, all given ones must hold. */
export interface HistoryFilter {
  /** Case-insensitive substring of the raw or the final text. */
  text?: string
  /** The exact `appName`. */
  app?: string
  /** Inclusive lower bound, epoch milliseconds. */
  fromMs?: number
  /** Exclusive upper bound, epoch milliseconds. */
  toMs?: number
}

/** Where a page starts: just after the entry with this timestamp and insertion number (newest first). */
export interface HistoryCursor {
  timestampMs: number
  seq: number
}

export const QUERY_LIMITS = { maxSearchLength: 1000, maxAppLength: 1024 } as const

/** A date (`2026-01-31`, midnight UTC) or a date-time with a zone (`2026-01-31T09:00:00Z`, `…+02:00`). */
const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/i

/** A repeated parameter: the first one counts, as for `limit`. */
function first(raw: unknown): string | undefined {
  const value = Array.isArray(raw) ? raw[0] : raw
  return typeof value === 'string' ? value : undefined
}

function text(raw: unknown, name: string, maxLength: number): string | undefined {
  const value = first(raw)
  if (value === undefined || value === '') return undefined
  if (!isWellFormedText(value))
    throw historyErrors.INVALID_HISTORY_QUERY(`${name} is not valid Unicode text.`)
  if (value.length > maxLength)
    throw historyErrors.INVALID_HISTORY_QUERY(`${name} is longer than ${maxLength} characters.`)
  return value
}

function instant(raw: unknown, name: string): number | undefined {
  const value = first(raw)
  if (value === undefined || value === '') return undefined
  const ms = ISO.test(value) ? Date.parse(value) : Number.NaN
  if (!Number.isFinite(ms)) {
    throw historyErrors.INVALID_HISTORY_QUERY(
      `${name} must be an ISO 8601 date or date-time with a zone (e.g. 2026-01-31 or 2026-01-31T09:00:00Z).`,
    )
  }
  return ms
}

/** The filter of a query string (`q`, `app`, `from`, `to`); empty values mean "not given". */
export function parseHistoryFilter(query: Record<string, unknown>): HistoryFilter {
  const filter: HistoryFilter = {}
  const search = text(query.q, 'q', QUERY_LIMITS.maxSearchLength)
  if (search !== undefined) filter.text = search
  const app = text(query.app, 'app', QUERY_LIMITS.maxAppLength)
  if (app !== undefined) filter.app = app
  const from = instant(query.from, 'from')
  if (from !== undefined) filter.fromMs = from
  const to = instant(query.to, 'to')
  if (to !== undefined) filter.toMs = to
  if (from !== undefined && to !== undefined && from > to)
    throw historyErrors.INVALID_HISTORY_QUERY('from is after to.')
  return filter
}

/** Cursors are opaque to clients: base64url of `<timestamp ms>.<seq>`. */
export function encodeCursor(cursor: HistoryCursor): string {
  return Buffer.from(`${cursor.timestampMs}.${cursor.seq}`).toString('base64url')
}

export function parseCursor(raw: unknown): HistoryCursor | undefined {
  const value = first(raw)
  if (value === undefined || value === '') return undefined
  const match = /^(-?\d{1,16})\.(\d{1,16})$/.exec(
    /^[A-Za-z0-9_-]{1,64}$/.test(value) ? Buffer.from(value, 'base64url').toString('latin1') : '',
  )
  if (!match)
    throw historyErrors.INVALID_HISTORY_QUERY('cursor is not one this API gave (use nextCursor as it is).')
  return { timestampMs: Number(match[1]), seq: Number(match[2]) }
}
