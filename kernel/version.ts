/** The running dictum version, read once from package.json; `unknown` when it cannot be read (spec 2.7). */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { REPO_ROOT } from './discovery.ts'

export function readVersion(root = REPO_ROOT): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: unknown }
    return typeof pkg.version === 'string' && pkg.version !== '' ? pkg.version : 'unknown'
  } catch {
    return 'unknown'
  }
}
