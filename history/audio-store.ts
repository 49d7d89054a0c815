/**
 * The audio kept with history entries (table `history_audio`, one FLAC file per entry). Deleting an entry
 * deletes its audio (ON DELETE CASCADE: one entry, delete-all, `history.maxEntries`); the bounds
 * `history.audioRetentionDays` and `history.audioMaxMb` are applied in the same transaction as each new
 * recording, so the table never holds more than the cap after a write.
 */
import type { Db } from '../storage/database.ts'

export interface AudioBounds {
  /** 0: no age limit. */
  audioRetentionDays: number
  audioMaxMb: number
}

const DAY_MS = 24 * 60 * 60 * 1000

export class HistoryAudioStore {
  readonly #statements

  constructor(db: Db) {
    this.#statements = {
      insert: db.prepare<{ entry_id: string; created_ms: number; bytes: number; data: Buffer }>(
        `INSERT INTO history_audio (entry_id, created_ms, bytes, data)
         VALUES (@entry_id, @created_ms, @bytes, @data)`,
      ),
      get: db.prepare<[string]>('SELECT data FROM history_audio WHERE entry_id = ?'),
      expire: db.prepare<[number]>('DELETE FROM history_audio WHERE created_ms < ?'),
      total: db.prepare('SELECT coalesce(sum(bytes), 0) AS total FROM history_audio'),
      oldest: db.prepare<[number]>(
        'SELECT entry_id, bytes FROM history_audio ORDER BY created_ms, entry_id LIMIT ?',
      ),
      remove: db.prepare<[string]>('DELETE FROM history_audio WHERE entry_id = ?'),
    }
  }

  /** Inside a write transaction: stores one entry's recording, then applies the bounds. */
  insert(entryId: string, data: Buffer, nowMs: number, bounds: AudioBounds): void {
    this.#statements.insert.run({ entry_id: entryId, created_ms: nowMs, bytes: data.length, data })
    this.applyBounds(nowMs, bounds)
  }

  /** Inside a write transaction: deletes recordings past the age limit, then the oldest over the size cap. */
  applyBounds(nowMs: number, { audioRetentionDays, audioMaxMb }: AudioBounds): void {
    if (audioRetentionDays > 0) this.#statements.expire.run(nowMs - audioRetentionDays * DAY_MS)
    const cap = audioMaxMb * 1024 * 1024
    let total = (this.#statements.total.get() as { total: number }).total
    while (total > cap) {
      const oldest = this.#statements.oldest.all(64) as { entry_id: string; bytes: number }[]
      if (oldest.length === 0) return
      for (const row of oldest) {
        if (total <= cap) return
        this.#statements.remove.run(row.entry_id)
        total -= row.bytes
      }
    }
  }

  /** The FLAC file kept with an entry, or null. */
  get(entryId: string): Buffer | null {
    const row = this.#statements.get.get(entryId) as { data: Buffer } | undefined
    return row?.data ?? null
  }
}
