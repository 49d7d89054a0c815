/** The dictionary's tables (see storage/migrations.ts): append, never edit a shipped one. */
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
  // 2: custom words get a stable id (UUID v4, random for the words already there), so one word can be
  // edited or deleted by id; the text stays the list's key
  `
  CREATE TABLE custom_words_v2 (
    id       TEXT NOT NULL UNIQUE,
    text_key TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    text     TEXT NOT NULL,
    weight   REAL,
    aliases  TEXT NOT NULL CHECK (json_valid(aliases))
  );
  INSERT INTO custom_words_v2 (id, text_key, position, text, weight, aliases)
    SELECT lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' ||
           substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + abs(random() % 4), 1) ||
           substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))),
           text_key, position, text, weight, aliases
      FROM custom_words;
  DROP TABLE custom_words;
  ALTER TABLE custom_words_v2 RENAME TO custom_words;
  CREATE INDEX custom_words_position ON custom_words (position);
  `,
]
