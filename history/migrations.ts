/** History's table (see storage/migrations.ts): append, never edit a shipped one. */
export const historyMigrations: readonly string[] = [
  // 1: dictations, newest first by timestamp then insertion order
  `
  CREATE TABLE history (
    seq                INTEGER PRIMARY KEY AUTOINCREMENT,
    id                 TEXT NOT NULL UNIQUE,
    timestamp_ms       INTEGER NOT NULL,
    raw_text           TEXT NOT NULL,
    final_text         TEXT NOT NULL,
    app_name           TEXT NOT NULL DEFAULT '',
    window_title       TEXT NOT NULL DEFAULT '',
    character_count    INTEGER NOT NULL,
    was_ai_processed   INTEGER NOT NULL CHECK (was_ai_processed IN (0, 1)),
    ai_processing_error TEXT
  );
  CREATE INDEX history_newest ON history (timestamp_ms DESC, seq DESC);
  `,
  // 2: what made the text (extensions): audio length, time to text, engine, AI provider (null: not known)
  `
  ALTER TABLE history ADD COLUMN duration_seconds REAL;
  ALTER TABLE history ADD COLUMN processing_ms INTEGER;
  ALTER TABLE history ADD COLUMN engine TEXT;
  ALTER TABLE history ADD COLUMN provider TEXT;
  `,
  // 3: the text the user kept (a correction), and the audio kept with an entry (gone with it: the cascade)
  `
  ALTER TABLE history ADD COLUMN corrected_text TEXT;
  CREATE TABLE history_audio (
    entry_id    TEXT PRIMARY KEY REFERENCES history (id) ON DELETE CASCADE,
    created_ms  INTEGER NOT NULL,
    bytes       INTEGER NOT NULL,
    data        BLOB NOT NULL
  );
  CREATE INDEX history_audio_oldest ON history_audio (created_ms, entry_id);
  `,
]
