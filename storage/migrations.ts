/**
 * Schema migrations, owned by the features that own the tables: each feature lists its migrations (entry N
 * takes that feature's tables from version N to N + 1) and the database records each feature's version in
 * `feature_versions`. Never edit a migration that has shipped; append a new one.
 *
 * `user_version` is the version of this bookkeeping itself: 2 is per-feature versions. 1 is the layout
 * dictum had before features owned their tables (one migration that made the dictionary and history
 * tables), taken over as dictionary 1 and history 1. 0 is a new database.
 */
import type BetterSqlite3 from 'better-sqlite3'

type Db = BetterSqlite3.Database

export interface FeatureMigrations {
  /** The feature's name, its key in `feature_versions`. */
  feature: string
  migrations: readonly string[]
}

export const BOOKKEEPING_VERSION = 2
const LEGACY_VERSIONS: Record<string, number> = { dictionary: 1, history: 1 }

const userVersion = (db: Db): number => db.pragma('user_version', { simple: true }) as number

function checkKnown(version: number): void {
  if (version > BOOKKEEPING_VERSION) {
    throw new Error(
      `database schema version ${version} is newer than this dictum knows (${BOOKKEEPING_VERSION}); upgrade dictum`,
    )
  }
}

/**
 * Brings the database to the newest schema of every feature, each step in its own transaction. Several
 * processes may open a fresh database at once: each step takes the write lock first and reads the version
 * again under it, so a step another process has just applied is not applied twice.
 */
export function migrate(db: Db, features: readonly FeatureMigrations[]): void {
  checkKnown(userVersion(db))
  if (userVersion(db) < BOOKKEEPING_VERSION) {
    db.transaction(() => {
      const version = userVersion(db)
      checkKnown(version)
      if (version === BOOKKEEPING_VERSION) return
      db.exec('CREATE TABLE feature_versions (feature TEXT PRIMARY KEY, version INTEGER NOT NULL)')
      if (version === 1) {
        const record = db.prepare('INSERT INTO feature_versions (feature, version) VALUES (?, ?)')
        for (const [feature, legacy] of Object.entries(LEGACY_VERSIONS)) record.run(feature, legacy)
      }
      db.pragma(`user_version = ${BOOKKEEPING_VERSION}`)
    }).immediate()
  }
  const read = db.prepare<[string], { version: number }>(
    'SELECT version FROM feature_versions WHERE feature = ?',
  )
  const write = db.prepare(
    'INSERT INTO feature_versions (feature, version) VALUES (?, ?) ON CONFLICT (feature) DO UPDATE SET version = excluded.version',
  )
  for (const { feature, migrations } of features) {
    const versionOf = () => read.get(feature)?.version ?? 0
    const check = (version: number) => {
      if (version > migrations.length) {
        throw new Error(
          `the ${feature} tables are at version ${version}, newer than this dictum knows (${migrations.length}); upgrade dictum`,
        )
      }
    }
    check(versionOf())
    while (versionOf() < migrations.length) {
      db.transaction(() => {
        const version = versionOf()
        check(version)
        if (version >= migrations.length) return
        db.exec(migrations[version]!)
        write.run(feature, version + 1)
      }).immediate()
    }
  }
}

/** Each feature's schema version (tests, diagnostics). */
export function featureVersions(db: Db): Record<string, number> {
  const rows = db.prepare('SELECT feature, version FROM feature_versions ORDER BY feature').all() as {
    feature: string
    version: number
  }[]
  return Object.fromEntries(rows.map((row) => [row.feature, row.version]))
}
