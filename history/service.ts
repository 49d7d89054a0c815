/** Dictation history in SQLite: newest-first reads on an index, retention by `history.maxEntries`. */

import { randomUUID } from 'node:crypto'
import type { Db } from '../storage/database.ts'
import { writeTransaction } from '../storage/write.ts'
import { type AudioBounds, HistoryAudioStore } from './audio-store.ts'
import { historyErrors } from './errors.ts'
import { encodeCursor, type HistoryCursor, type HistoryFilter } from './query.ts'
import { HISTORY_LIMIT, type HistoryEntry } from './schemas.ts'

/** What a dictation hands to history. */
export interface NewHistoryEntry {
  rawText: string
  finalText: string
  appName?: string
  windowTitle?: string
  wasAIProcessed: boolean
  aiProcessingError: string | null
  /** Seconds of audio transcribed. */
  durationSeconds?: number | null
  /** From the audio's arrival to the final text (AI clean-up included), ms. */
  processingMs?: number | null
  /** The speech engine's id. */
  engine?: string | null
  /** The AI provider that cleaned the text up (null: none ran). */
  provider?: string | null
  /** Defaults to now. */
  timestamp?: Date
  /** The recording as FLAC (audio/recording-encoder.ts), kept with the entry; absent: none kept. */
  audio?: Buffer | null
}

interface Row {
  seq?: number
  id: string
  timestamp_ms: number
  raw_text: string
  final_text: string
  app_name: string
  window_title: string
  character_count: number
  was_ai_processed: number
  ai_processing_error: string | null
  duration_seconds: number | null
  processing_ms: number | null
  engine: string | null
  provider: string | null
  corrected_text: string | null
  has_audio?: number
}

/**
 * Made at the first count, not when the module loads: creating it loads ICU's break rules, ~30 ms that
 * `dictum serve` would otherwise spend before it answers.
 */
let segmenter: Intl.Segmenter | undefined

/** User-perceived characters (grapheme clusters), as docs/api-decisions.md asks for `characterCount`. */
export function countCharacters(text: string): number {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })
  let count = 0
  for (const _ of segmenter.segment(text)) count++
  return count
}

/** `limit` handling of GET /v1/history: not an integer -> default; clamped to 1..1000. */
export function parseHistoryLimit(raw: unknown): number {
  const first = Array.isArray(raw) ? raw[0] : raw
  const text = typeof first === 'string' ? first.trim() : ''
  if (!/^[-+]?\d+$/.test(text)) return HISTORY_LIMIT.default
  const n = Number(text)
  return Math.min(HISTORY_LIMIT.max, Math.max(HISTORY_LIMIT.min, n))
}

function toEntry(row: Row): HistoryEntry {
  return {
    id: row.id,
    timestamp: new Date(row.timestamp_ms).toISOString(),
    originalText: row.raw_text,
    rawText: row.raw_text,
    finalText: row.final_text,
    processedText: row.final_text,
    appName: row.app_name,
    windowTitle: row.window_title,
    characterCount: row.character_count,
    wasAIProcessed: row.was_ai_processed === 1,
    aiProcessingError: row.ai_processing_error,
    durationSeconds: row.duration_seconds,
    processingMs: row.processing_ms,
    engine: row.engine,
    provider: row.provider,
    correctedText: row.corrected_text,
    hasAudio: row.has_audio === 1,
  }
}

/** The `history.*` config in force (read at use time: live edits apply to the next write). */
export interface HistorySettings extends AudioBounds {
  enabled: boolean
  maxEntries: number
  recordTranscribe: boolean
  keepAudio: boolean
}

/** Where a transcription route reports a history write that failed (its answer goes out regardless). */
interface FailureLog {
  error(obj: object, msg: string): void
}

/** One page of a query: the entries, and where the next page starts (null: there is none). */
export interface HistoryPage {
  count: number
  items: HistoryEntry[]
  nextCursor: string | null
}

const COLUMNS = `seq, id, timestamp_ms, raw_text, final_text, app_name, window_title, character_count,
                 was_ai_processed, ai_processing_error, duration_seconds, processing_ms, engine, provider,
                 corrected_text,
                 EXISTS (SELECT 1 FROM history_audio WHERE history_audio.entry_id = history.id) AS has_audio`

/** Lower case for the text search, beyond ASCII (SQLite's own lower() and LIKE only fold ASCII). */
const FOLD_FUNCTION = 'dictum_history_fold'

export class HistoryService {
  readonly #db: Db
  readonly #settings: () => HistorySettings
  readonly #statements
  readonly #audio: HistoryAudioStore
  /** Prepared queries by the set of filters they use (at most 2^5 shapes). */
  readonly #queries = new Map<string, ReturnType<Db['prepare']>>()

  constructor({ db, historySettings }: { db: Db; historySettings: () => HistorySettings }) {
    this.#db = db
    this.#settings = historySettings
    this.#statements = {
      insert: db.prepare(
        `INSERT INTO history (id, timestamp_ms, raw_text, final_text, app_name, window_title, character_count,
                              was_ai_processed, ai_processing_error, duration_seconds, processing_ms, engine,
                              provider)
         VALUES (@id, @timestamp_ms, @raw_text, @final_text, @app_name, @window_title, @character_count,
                 @was_ai_processed, @ai_processing_error, @duration_seconds, @processing_ms, @engine, @provider)`,
      ),
      prune: db.prepare(
        `DELETE FROM history WHERE seq IN
           (SELECT seq FROM history ORDER BY timestamp_ms DESC, seq DESC LIMIT -1 OFFSET ?)`,
      ),
      clear: db.prepare('DELETE FROM history'),
      remove: db.prepare<[string]>('DELETE FROM history WHERE id = ?'),
      byId: db.prepare<[string]>(`SELECT ${COLUMNS} FROM history WHERE id = ?`),
      recorded: db.prepare<{ engine: string | null; limit: number }>(
        `SELECT ${COLUMNS} FROM history
         WHERE EXISTS (SELECT 1 FROM history_audio WHERE history_audio.entry_id = history.id)
           AND (@engine IS NULL OR engine = @engine)
         ORDER BY timestamp_ms DESC, seq DESC LIMIT @limit`,
      ),
      correct: db.prepare<[string | null, string]>('UPDATE history SET corrected_text = ? WHERE id = ?'),
    }
    this.#audio = new HistoryAudioStore(db)
    db.function(FOLD_FUNCTION, { deterministic: true }, (text: unknown) =>
      typeof text === 'string' ? text.toLowerCase() : text,
    )
  }

  /**
   * Newest first, the entries matching `filter`, from just after `cursor`, at most `limit`; `nextCursor`
   * names where the next page starts when there may be one.
   */
  query(filter: HistoryFilter, limit: number, cursor?: HistoryCursor): HistoryPage {
    const page = this.#page(filter, limit, cursor)
    const items = page.rows.map(toEntry)
    return { count: items.length, items, nextCursor: page.next ? encodeCursor(page.next) : null }
  }

  /**
   * Every entry matching `filter`, newest first, a page at a time: an export never holds the whole history,
   * and between pages the database is free for other requests (an open SQLite iterator would hold the
   * connection for the whole export).
   */
  *pages(filter: HistoryFilter, pageSize = 500): Generator<HistoryEntry[]> {
    let cursor: HistoryCursor | undefined
    for (;;) {
      const page = this.#page(filter, pageSize, cursor)
      if (page.rows.length > 0) yield page.rows.map(toEntry)
      if (page.next === null) return
      cursor = page.next
    }
  }

  #page(
    filter: HistoryFilter,
    limit: number,
    cursor: HistoryCursor | undefined,
  ): { rows: Row[]; next: HistoryCursor | null } {
    const conditions: string[] = []
    const params: Record<string, unknown> = { limit: limit + 1 }
    if (filter.text !== undefined) {
      conditions.push(
        `(instr(${FOLD_FUNCTION}(raw_text), @text) > 0 OR instr(${FOLD_FUNCTION}(final_text), @text) > 0
          OR instr(${FOLD_FUNCTION}(coalesce(corrected_text, '')), @text) > 0)`,
      )
      params.text = filter.text.toLowerCase()
    }
    if (filter.app !== undefined) {
      conditions.push('app_name = @app')
      params.app = filter.app
    }
    if (filter.fromMs !== undefined) {
      conditions.push('timestamp_ms >= @from')
      params.from = filter.fromMs
    }
    if (filter.toMs !== undefined) {
      conditions.push('timestamp_ms < @to')
      params.to = filter.toMs
    }
    if (cursor !== undefined) {
      conditions.push('(timestamp_ms < @cursorTs OR (timestamp_ms = @cursorTs AND seq < @cursorSeq))')
      params.cursorTs = cursor.timestampMs
      params.cursorSeq = cursor.seq
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''
    let statement = this.#queries.get(where)
    if (!statement) {
      statement = this.#db.prepare(
        `SELECT ${COLUMNS} FROM history ${where} ORDER BY timestamp_ms DESC, seq DESC LIMIT @limit`,
      )
      this.#queries.set(where, statement)
    }
    const rows = statement.all(params) as Row[]
    const more = rows.length > limit
    if (more) rows.pop()
    const last = rows[rows.length - 1]
    return { rows, next: more && last ? { timestampMs: last.timestamp_ms, seq: last.seq ?? 0 } : null }
  }

  /** DELETE /v1/history/:id: HISTORY_ENTRY_NOT_FOUND when no entry has the id. */
  async remove(id: string): Promise<void> {
    const removed = await writeTransaction(
      this.#db,
      () => this.#statements.remove.run(id.toLowerCase()).changes,
    )
    if (removed === 0) throw notFound(id)
  }

  /** One entry by id: HISTORY_ENTRY_NOT_FOUND when none has it. */
  get(id: string): HistoryEntry {
    const row = this.#statements.byId.get(id.toLowerCase()) as Row | undefined
    if (!row) throw notFound(id)
    return toEntry(row)
  }

  /** The FLAC recording kept with an entry: HISTORY_AUDIO_NOT_FOUND when the entry has none. */
  audio(id: string): Buffer {
    const data = this.#audio.get(this.get(id).id)
    if (!data) throw historyErrors.HISTORY_AUDIO_NOT_FOUND(JSON.stringify(shortId(id)))
    return data
  }

  /** Stores the text the user kept (null: none); answers the entry. HISTORY_ENTRY_NOT_FOUND for no entry. */
  async correct(id: string, text: string | null): Promise<HistoryEntry> {
    const key = id.toLowerCase()
    const changed = await writeTransaction(this.#db, () => this.#statements.correct.run(text, key).changes)
    if (changed === 0) throw notFound(id)
    return this.get(key)
  }

  /** The newest entries with a kept recording (of this engine's, when given), at most `limit`. */
  recorded(limit: number, engine: string | null = null): HistoryEntry[] {
    return (this.#statements.recorded.all({ engine, limit }) as Row[]).map(toEntry)
  }

  /** Deletes recordings past `history.audioRetentionDays` and over `history.audioMaxMb` now. */
  async applyAudioBounds(now = new Date()): Promise<void> {
    const settings = this.#settings()
    await writeTransaction(this.#db, () => this.#audio.applyBounds(now.getTime(), settings))
  }

  /** Newest first, at most `limit` entries. */
  list(limit: number): { count: number; items: HistoryEntry[] } {
    const items = this.#page({}, limit, undefined).rows.map(toEntry)
    return { count: items.length, items }
  }

  /**
   * Stores a dictation (with the pruning to `history.maxEntries`, in one transaction); returns the entry, or
   * null for an empty transcript (not stored). Fails with a storage error (DATABASE_BUSY, DISK_FULL…).
   */
  async record(entry: NewHistoryEntry): Promise<HistoryEntry | null> {
    if (entry.rawText.trim() === '' && entry.finalText.trim() === '') return null
    const row: Row = {
      id: randomUUID(),
      timestamp_ms: (entry.timestamp ?? new Date()).getTime(),
      raw_text: entry.rawText,
      final_text: entry.finalText,
      app_name: entry.appName ?? '',
      window_title: entry.windowTitle ?? '',
      character_count: countCharacters(entry.finalText),
      was_ai_processed: entry.wasAIProcessed ? 1 : 0,
      ai_processing_error: entry.aiProcessingError,
      duration_seconds: entry.durationSeconds ?? null,
      processing_ms:
        entry.processingMs === undefined || entry.processingMs === null
          ? null
          : Math.round(entry.processingMs),
      engine: entry.engine ?? null,
      provider: entry.provider ?? null,
      corrected_text: null,
    }
    const settings = this.#settings()
    const audio = settings.keepAudio ? (entry.audio ?? null) : null
    await writeTransaction(this.#db, () => {
      this.#statements.insert.run(row)
      if (audio) this.#audio.insert(row.id, audio, Date.now(), settings)
      this.#statements.prune.run(settings.maxEntries)
    })
    return this.get(row.id)
  }

  /**
   * The history policy of the transcription routes (/v1/transcribe, /v1/audio/transcriptions): with
   * `history.enabled` and `history.recordTranscribe`, an entry as a dictation without AI stores it: raw and
   * final text are the transcript with the dictionary applied (docs/api-decisions.md, History). History is
   * a side effect there: storing failing (database busy, disk full) is logged, and the transcript answered.
   */
  async recordTranscription(
    transcript: { text: string; durationSeconds?: number; engine?: string },
    log: FailureLog,
  ): Promise<void> {
    const { enabled, recordTranscribe } = this.#settings()
    if (!enabled || !recordTranscribe) return
    await this.record({
      rawText: transcript.text,
      finalText: transcript.text,
      wasAIProcessed: false,
      aiProcessingError: null,
      durationSeconds: transcript.durationSeconds ?? null,
      engine: transcript.engine ?? null,
    }).catch((err: unknown) => log.error({ err }, 'the transcription could not be stored in history'))
  }

  async clear(): Promise<number> {
    return writeTransaction(this.#db, () => this.#statements.clear.run().changes)
  }
}

function shortId(id: string): string {
  return id.length > 100 ? `${id.slice(0, 100)}…` : id
}

function notFound(id: string) {
  return historyErrors.HISTORY_ENTRY_NOT_FOUND(JSON.stringify(shortId(id)))
}
