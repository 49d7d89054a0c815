/**
 * SQLite persistence of the dictionary. Every write is one IMMEDIATE transaction that reads the current list,
 * merges and rewrites it, so concurrent writers (in this process or another dictum process) never lose an
 * update; while another process holds the lock it waits without blocking the event loop (writeTransaction).
 * Reads are served from a snapshot that is refreshed when this or another connection commits.
 */
import type { Db } from '../storage/database.ts'
import { writeTransaction } from '../storage/write.ts'
import type { CustomWord, ReplacementRule } from './schemas.ts'

/** How stale the view of other processes' writes may get (this process's own writes are seen at once). */
export const OTHER_WRITERS_CHECK_MS = 100

interface Snapshot {
  dataVersion: number
  localVersion: number
  rules: readonly ReplacementRule[]
  words: readonly CustomWord[]
}

interface RuleRow {
  id: string
  triggers: string
  replacement: string
}

interface WordRow {
  id: string
  text: string
  weight: number | null
  aliases: string
}

export class DictionaryStore {
  readonly #db: Db
  readonly #statements
  #localVersion = 0
  #checkedAt = Number.NEGATIVE_INFINITY
  #snapshot: Snapshot | null = null

  constructor(db: Db) {
    this.#db = db
    this.#statements = {
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
      rules: db.prepare<[], RuleRow>(
        'SELECT id, triggers, replacement FROM replacement_rules ORDER BY position',
      ),
      words: db.prepare<[], WordRow>('SELECT id, text, weight, aliases FROM custom_words ORDER BY position'),
      clearRules: db.prepare('DELETE FROM replacement_rules'),
      clearWords: db.prepare('DELETE FROM custom_words'),
      insertRule: db.prepare(
        'INSERT INTO replacement_rules (id, position, triggers, replacement) VALUES (?, ?, ?, ?)',
      ),
      insertWord: db.prepare(
        'INSERT INTO custom_words (id, text_key, position, text, weight, aliases) VALUES (?, ?, ?, ?, ?, ?)',
      ),
    }
  }

  /** A value that changes whenever the dictionary may have changed (for caches derived from it). */
  get version(): object {
    return this.#current()
  }

  rules(): readonly ReplacementRule[] {
    return this.#current().rules
  }

  words(): readonly CustomWord[] {
    return this.#current().words
  }

  /**
   * Reads, transforms and rewrites the rules in one transaction; returns what was stored. `alongside`:
   * statements on another table that must happen in the same transaction (a suggestion accepted).
   */
  updateRules(
    transform: (current: readonly ReplacementRule[]) => ReplacementRule[],
    alongside?: () => void,
  ): Promise<readonly ReplacementRule[]> {
    return this.#write(() => {
      const stored = this.#rewriteRules(transform)
      alongside?.()
      return stored
    })
  }

  /** Reads, transforms and rewrites the custom words in one transaction; returns what was stored. */
  updateWords(
    transform: (current: readonly CustomWord[]) => CustomWord[],
    alongside?: () => void,
  ): Promise<readonly CustomWord[]> {
    return this.#write(() => {
      const stored = this.#rewriteWords(transform)
      alongside?.()
      return stored
    })
  }

  /** Both lists in one transaction: they change together or not at all (an import). */
  updateBoth(
    rules: (current: readonly ReplacementRule[]) => ReplacementRule[],
    words: (current: readonly CustomWord[]) => CustomWord[],
  ): Promise<{ rules: readonly ReplacementRule[]; words: readonly CustomWord[] }> {
    return this.#write(() => ({ rules: this.#rewriteRules(rules), words: this.#rewriteWords(words) }))
  }

  #rewriteRules(transform: (current: readonly ReplacementRule[]) => ReplacementRule[]): ReplacementRule[] {
    const next = transform(this.#readRules())
    this.#statements.clearRules.run()
    for (const [i, r] of next.entries()) {
      this.#statements.insertRule.run(r.id, i, JSON.stringify(r.triggers), r.replacement)
    }
    return next
  }

  #rewriteWords(transform: (current: readonly CustomWord[]) => CustomWord[]): CustomWord[] {
    const next = transform(this.#readWords())
    this.#statements.clearWords.run()
    for (const [i, w] of next.entries()) {
      this.#statements.insertWord.run(
        w.id,
        w.text.toLowerCase(),
        i,
        w.text,
        w.weight,
        JSON.stringify(w.aliases),
      )
    }
    return next
  }

  async #write<T>(work: () => T): Promise<T> {
    const result = await writeTransaction(this.#db, work)
    this.#localVersion++
    this.#snapshot = null
    return result
  }

  #current(): Snapshot {
    const cached = this.#snapshot
    const now = performance.now()
    // Writes through this store invalidate the snapshot at once; writes by other processes (the CLI) are
    // noticed through SQLite's data_version, asked at most every OTHER_WRITERS_CHECK_MS: under load the
    // query costs more than the rest of a GET.
    if (
      cached &&
      cached.localVersion === this.#localVersion &&
      now - this.#checkedAt < OTHER_WRITERS_CHECK_MS
    ) {
      return cached
    }
    this.#checkedAt = now
    const dataVersion = this.#statements.dataVersion.get() as number
    if (cached && cached.dataVersion === dataVersion && cached.localVersion === this.#localVersion)
      return cached
    const snapshot: Snapshot = {
      dataVersion,
      localVersion: this.#localVersion,
      rules: Object.freeze(this.#readRules()),
      words: Object.freeze(this.#readWords()),
    }
    this.#snapshot = snapshot
    return snapshot
  }

  #readRules(): ReplacementRule[] {
    return this.#statements.rules
      .all()
      .map((row) => ({ id: row.id, triggers: JSON.parse(row.triggers), replacement: row.replacement }))
  }

  #readWords(): CustomWord[] {
    return this.#statements.words.all().map((row) => ({
      id: row.id,
      text: row.text,
      weight: row.weight,
      aliases: JSON.parse(row.aliases),
    }))
  }
}
