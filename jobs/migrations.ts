/** The jobs table of the local backend (see storage/migrations.ts): append, never edit a shipped one. */
export const jobsMigrations: readonly string[] = [
  // 1: jobs; the next to run is the queued one of highest priority, then oldest (seq)
  `
  CREATE TABLE jobs (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    state           TEXT NOT NULL CHECK (state IN ('queued', 'active', 'completed', 'failed', 'cancelled')),
    priority        INTEGER NOT NULL,
    idempotency_key TEXT UNIQUE,
    batch_id        TEXT,
    spec            TEXT NOT NULL,
    progress        REAL NOT NULL DEFAULT 0,
    attempts        INTEGER NOT NULL DEFAULT 0,
    max_attempts    INTEGER NOT NULL,
    error           TEXT,
    result          TEXT,
    runner          TEXT,
    created_ms      INTEGER NOT NULL,
    started_ms      INTEGER,
    finished_ms     INTEGER
  );
  CREATE INDEX jobs_next ON jobs (state, priority DESC, seq);
  CREATE INDEX jobs_by_state ON jobs (state, seq DESC);
  `,
  // 2: crashes of the service a job was running at, consecutive (local/store.ts recoverActive); a job with
  // some waits behind the others of its priority, so a crash loop does not fall on one job
  `
  ALTER TABLE jobs ADD COLUMN interruptions INTEGER NOT NULL DEFAULT 0;
  DROP INDEX jobs_next;
  CREATE INDEX jobs_next ON jobs (state, priority DESC, interruptions > 0, seq);
  `,
]
