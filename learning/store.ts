/** Suggestions in SQLite (table learning_suggestions): one row per confusion, its evidence growing. */
import { randomUUID } from 'node:crypto'
import type { Db } from '../storage/database.ts'
import type { Replay, Suggestion } from './schemas.ts'
import type { Proposal } from './suggest.ts'

interface Row {
  id: string
  key: string
  kind: Suggestion['kind']
  entry: string
  heard: string
  evidence: string
  engine: string | null
  replay: string | null
  state: Suggestion['state']
  created_ms: number
  updated_ms: number
}

/** At most this many entry ids are kept as one suggestion's evidence (the newest). */
const MAX_EVIDENCE = 100

function toSuggestion(row: Row): Suggestion {
  return {
    id: row.id,
    kind: row.kind,
    entry: JSON.parse(row.entry) as Suggestion['entry'],
    heard: row.heard,
    evidence: JSON.parse(row.evidence) as string[],
    engine: row.engine,
    replay: row.replay === null ? null : (JSON.parse(row.replay) as Replay),
    state: row.state,
    createdAt: new Date(row.created_ms).toISOString(),
    updatedAt: new Date(row.updated_ms).toISOString(),
  }
}

export class SuggestionStore {
  readonly #statements

  constructor(db: Db) {
    this.#statements = {
      byKey: db.prepare<[string]>('SELECT * FROM learning_suggestions WHERE key = ?'),
      byId: db.prepare<[string]>('SELECT * FROM learning_suggestions WHERE id = ?'),
      all: db.prepare('SELECT * FROM learning_suggestions ORDER BY updated_ms DESC, id'),
      insert: db.prepare(
        `INSERT INTO learning_suggestions (id, key, kind, entry, heard, evidence, engine, replay, state,
                                           created_ms, updated_ms)
         VALUES (@id, @key, @kind, @entry, @heard, @evidence, @engine, NULL, 'pending', @now, @now)`,
      ),
      evidence: db.prepare<{ id: string; evidence: string; now: number }>(
        'UPDATE learning_suggestions SET evidence = @evidence, updated_ms = @now WHERE id = @id',
      ),
      replay: db.prepare<{ id: string; replay: string; now: number }>(
        'UPDATE learning_suggestions SET replay = @replay, updated_ms = @now WHERE id = @id',
      ),
      state: db.prepare<{ id: string; state: string; now: number }>(
        'UPDATE learning_suggestions SET state = @state, updated_ms = @now WHERE id = @id',
      ),
    }
  }

  list(): Suggestion[] {
    return (this.#statements.all.all() as Row[]).map(toSuggestion)
  }

  get(id: string): Suggestion | null {
    const row = this.#statements.byId.get(id.toLowerCase()) as Row | undefined
    return row ? toSuggestion(row) : null
  }

  /**
   * Inside a write transaction: a new suggestion, or the one with the same key with `entryId` added to its
   * evidence (a dismissed or accepted one keeps its state: seeing it again is no reason to ask again).
   */
  record(proposal: Proposal, entryId: string, engine: string | null, now: number): Suggestion {
    const existing = this.#statements.byKey.get(proposal.key) as Row | undefined
    if (!existing) {
      const id = randomUUID()
      this.#statements.insert.run({
        id,
        key: proposal.key,
        kind: proposal.kind,
        entry: JSON.stringify(proposal.entry),
        heard: proposal.heard,
        evidence: JSON.stringify([entryId]),
        engine,
        now,
      })
      return this.get(id) as Suggestion
    }
    const evidence = JSON.parse(existing.evidence) as string[]
    if (!evidence.includes(entryId)) {
      const next = [...evidence, entryId].slice(-MAX_EVIDENCE)
      this.#statements.evidence.run({ id: existing.id, evidence: JSON.stringify(next), now })
    }
    return this.get(existing.id) as Suggestion
  }

  /** Inside a write transaction. */
  setReplay(id: string, replay: Replay, now: number): void {
    this.#statements.replay.run({ id, replay: JSON.stringify(replay), now })
  }

  /** Inside a write transaction. */
  setState(id: string, state: Suggestion['state'], now: number): void {
    this.#statements.state.run({ id, state, now })
  }
}
