/**
 * Versioned schema migrations: entry N takes the database from `user_version` N to N + 1. Never edit a
 * migration that has shipped; append a new one.
 */
export const migrations: readonly string[] = [
  // 1: dictionary and history
  `
  CREATE TABLE replacement_rules (
    id          TEXT PRIMARY KEY,
    position    INTEGER NOT NULL,
    triggers    TEXT NOT NULL CHECK (json_valid(triggers)),
    replacement TEXT NOT NULL
  );
  CREATE INDEX replacement_rules_position ON replacement_rules (position);

  CREATE TABLE custom_words (
    text_key TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    text     TEXT NOT NULL,
    weight   REAL,
    aliases  TEXT NOT NULL CHECK (json_valid(aliases))
  );
  CREATE INDEX custom_words_position ON custom_words (position);

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
]
