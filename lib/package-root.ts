/**
 * The folder of dictum's own package.json, found from this module upwards, so that the sources (a git
 * checkout: `lib/`) and the compiled package (`dist/lib/`) find the same files: the version, and the
 * assets dictum ships (`assets/silero-vad/`).
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

function findPackageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (let up = 0; up < 4; up++) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'assets'))) return dir
    dir = path.dirname(dir)
  }
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
}

export const PACKAGE_ROOT = findPackageRoot()
