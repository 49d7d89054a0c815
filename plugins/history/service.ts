/** Dictation history in SQLite: newest-first reads on an index, retention by `history.maxEntries`. */
import { randomUUID } from 'node:crypto'
import type { Db } from '../../kernel/storage/database.ts'
import { writeTransaction } from '../../kernel/storage/write.ts'
import { HISTORY_LIMIT, type HistoryEntry } from './schemas.ts'

/** What a dictation hands to history. */
export interface NewHistoryEntry {
  rawText: string
  finalText: string
  appName?: string
  windowTitle?: string
  wasAIProcessed: boolean
  aiProcessingError: string | null
  /** Defaults to now. */
  timestamp?: Date
}

interface Row {
  id: string
  timestamp_ms: number
  raw_text: string
  final_text: string
  app_name: string
  window_title: string
  character_count: number
  was_ai_processed: number
  ai_processing_error: string | null
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/** User-perceived characters (grapheme clusters), as docs/api-decisions.md asks for `characterCount`. */
export function countCharacters(text: string): number {
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
  }
}

/** The `history.*` config in force (read at use time: live edits apply to the next write). */
export interface HistorySettings {
  enabled: boolean
  maxEntries: number
  recordTranscribe: boolean
}

/** Where a transcription route reports a history write that failed (its answer goes out regardless). */
interface FailureLog {
  error(obj: object, msg: string): void
}

export class HistoryService {
  readonly #db: Db
  readonly #settings: () => HistorySettings
  readonly #statements

  constructor({ db, historySettings }: { db: Db; historySettings: () => HistorySettings }) {
    this.#db = db
    this.#settings = historySettings
    this.#statements = {
      newest: db.prepare<[number], Row>(
        `SELECT id, timestamp_ms, raw_text, final_text, app_name, window_title, character_count,
                was_ai_processed, ai_processing_error
           FROM history ORDER BY timestamp_ms DESC, seq DESC LIMIT ?`,
      ),
      insert: db.prepare(
        `INSERT INTO history (id, timestamp_ms, raw_text, final_text, app_name, window_title, character_count,
                              was_ai_processed, ai_processing_error)
         VALUES (@id, @timestamp_ms, @raw_text, @final_text, @app_name, @window_title, @character_count,
                 @was_ai_processed, @ai_processing_error)`,
      ),
      prune: db.prepare(
        `DELETE FROM history WHERE seq IN
           (SELECT seq FROM history ORDER BY timestamp_ms DESC, seq DESC LIMIT -1 OFFSET ?)`,
      ),
      clear: db.prepare('DELETE FROM history'),
    }
  }

  /** Newest first, at most `limit` entries. */
  list(limit: number): { count: number; items: HistoryEntry[] } {
    const items = this.#statements.newest.all(limit).map(toEntry)
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
    }
    const { maxEntries } = this.#settings()
    await writeTransaction(this.#db, () => {
      this.#statements.insert.run(row)
      this.#statements.prune.run(maxEntries)
    })
    return toEntry(row)
  }

  /**
   * The history policy of the transcription routes (/v1/transcribe, /v1/audio/transcriptions): with
   * `history.enabled` and `history.recordTranscribe`, an entry as a dictation without AI stores it: raw and
   * final text are the transcript with the dictionary applied (docs/api-decisions.md, History). History is
   * a side effect there: storing failing (database busy, disk full) is logged, and the transcript answered.
   */
  async recordTranscription(transcript: { text: string }, log: FailureLog): Promise<void> {
    const { enabled, recordTranscribe } = this.#settings()
    if (!enabled || !recordTranscribe) return
    await this.record({
      rawText: transcript.text,
      finalText: transcript.text,
      wasAIProcessed: false,
      aiProcessingError: null,
    }).catch((err: unknown) => log.error({ err }, 'the transcription could not be stored in history'))
  }

  async clear(): Promise<number> {
    return writeTransaction(this.#db, () => this.#statements.clear.run().changes)
  }
}
