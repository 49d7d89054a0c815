/** The learning feature's table (see storage/migrations.ts): append, never edit a shipped one. */
export const learningMigrations: readonly string[] = [
  // 1: suggestions learned from corrections; `key` names the confusion, so seeing it again strengthens it
  `
  CREATE TABLE learning_suggestions (
    id          TEXT PRIMARY KEY,
    key         TEXT NOT NULL UNIQUE,
    kind        TEXT NOT NULL CHECK (kind IN ('customWord', 'replacement')),
    entry       TEXT NOT NULL CHECK (json_valid(entry)),
    heard       TEXT NOT NULL,
    evidence    TEXT NOT NULL CHECK (json_valid(evidence)),
    engine      TEXT,
    replay      TEXT CHECK (replay IS NULL OR json_valid(replay)),
    state       TEXT NOT NULL CHECK (state IN ('pending', 'accepted', 'dismissed')),
    created_ms  INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL
  );
  CREATE INDEX learning_suggestions_newest ON learning_suggestions (updated_ms DESC);
  `,
]
