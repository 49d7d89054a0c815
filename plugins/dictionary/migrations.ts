/** The dictionary's tables (see kernel/storage/migrations.ts): append, never edit a shipped one. */
export const dictionaryMigrations: readonly string[] = [
  // 1: replacement rules and custom words, in list order
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
  `,
]
