/**
 * dictum's cache folder and how a file gets into it. Everything there can be made again (the code cache,
 * pocketsphinx's search dictionaries, the OpenAPI document), so a file that cannot be written only costs the
 * time to make it again, and each file is written whole or not at all: processes that make the same file at
 * once (two `dictum` commands, an engine host per core) each rename a complete one into place, and a reader
 * never sees half of one.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'

/** `$XDG_CACHE_HOME/dictum`, else `~/.cache/dictum` (a relative XDG_CACHE_HOME is ignored, as the spec says). */
export function dictumCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME?.startsWith('/')
    ? env.XDG_CACHE_HOME
    : path.join(env.HOME || homedir(), '.cache')
  return path.join(base, 'dictum')
}

/**
 * Writes `data` to `file` (its folder made, readable by its owner only) through a temporary file renamed
 * over it. `replaces`: the names in the same folder that start with it are earlier versions of this file
 * (another bundle, other routes), removed once it is written. False when it could not be written.
 */
export function writeCacheFile(file: string, data: string | Buffer, replaces?: string): boolean {
  const temporary = `${file}.${process.pid}.tmp`
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
    writeFileSync(temporary, data, { mode: 0o600 })
    renameSync(temporary, file)
  } catch {
    try {
      rmSync(temporary, { force: true })
    } catch {
      // The folder could not be made: there is no temporary file.
    }
    return false
  }
  if (replaces !== undefined) {
    const dir = path.dirname(file)
    for (const other of readdirSync(dir)) {
      if (other.startsWith(replaces) && !other.endsWith('.tmp') && other !== path.basename(file))
        rmSync(path.join(dir, other), { force: true })
    }
  }
  return true
}
