/** Where jobs keep files: results in `<resultsDir>/<job id>/`, uploads and fetched audio in `<resultsDir>/spool/`. */
import path from 'node:path'
import type { DictumConfig } from '../config/schema.ts'

/** `jobs.resultsDir`, or `<dataDir>/jobs`. */
export function resultsDirOf(config: Readonly<DictumConfig>): string {
  return path.resolve(config.jobs.resultsDir ?? path.join(config.dataDir, 'jobs'))
}

export function spoolDirOf(config: Readonly<DictumConfig>): string {
  return path.join(resultsDirOf(config), 'spool')
}
