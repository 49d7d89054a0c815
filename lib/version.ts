/** The running dictum version, read once from package.json; `unknown` when it cannot be read (spec 2.7). */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { PACKAGE_ROOT } from './package-root.ts'

export function readVersion(root = PACKAGE_ROOT): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: unknown }
    return typeof pkg.version === 'string' && pkg.version !== '' ? pkg.version : 'unknown'
  } catch {
    return 'unknown'
  }
}
