/**
 * The files of a batch submission: the audio files of a folder (not its subfolders), or the files an absolute
 * glob matches (`*` and `?` within one path segment, `**` for any number of folders). Sorted by path. Node 20
 * has no glob of its own, and these three wildcards are all a batch needs.
 */
import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import { errors } from '../kernel/errors.ts'

/** Most jobs one submission makes. */
export const MAX_BATCH_FILES = 10_000
/** Most folder entries a glob looks at, so a pattern over `/` cannot walk the whole disk. */
const MAX_ENTRIES_SCANNED = 200_000

/** Extensions of the audio (and audio-carrying video) files a folder submission picks. */
export const AUDIO_EXTENSIONS = new Set([
  '.wav',
  '.mp3',
  '.flac',
  '.ogg',
  '.oga',
  '.opus',
  '.m4a',
  '.aac',
  '.webm',
  '.mp4',
  '.mkv',
  '.mov',
  '.wma',
  '.aif',
  '.aiff',
  '.amr',
  '.3gp',
  '.caf',
])

export function hasWildcard(value: string): boolean {
  return /[*?]/.test(value)
}

export async function audioFilesIn(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true })
  const files = entries
    .filter((e) => e.isFile() && AUDIO_EXTENSIONS.has(path.extname(e.name).toLowerCase()))
    .map((e) => path.join(folder, e.name))
    .sort()
  return capped(files, folder)
}

export async function globFiles(pattern: string): Promise<string[]> {
  const segments = pattern.split('/')
  const firstWild = segments.findIndex(hasWildcard)
  const base = segments.slice(0, firstWild).join('/') || '/'
  const matcher = globRegExp(segments.slice(firstWild).join('/'))
  const found: string[] = []
  let scanned = 0
  const walk = async (dir: string, relative: string): Promise<void> => {
    let entries: import('node:fs').Dirent[]
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch {
      return // unreadable folders match nothing
    }
    for (const entry of entries) {
      if (++scanned > MAX_ENTRIES_SCANNED) {
        throw errors.JOB_TOO_MANY_FILES(
          `the glob looks through more than ${MAX_ENTRIES_SCANNED} entries; narrow it.`,
        )
      }
      const rel = relative ? `${relative}/${entry.name}` : entry.name
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) await walk(full, rel)
      else if (entry.isFile() && matcher.test(rel)) {
        found.push(full)
        if (found.length > MAX_BATCH_FILES) capped(found, pattern)
      }
    }
  }
  if (
    !(await stat(base).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    return []
  await walk(base, '')
  return capped(found.sort(), pattern)
}

function capped(files: string[], what: string): string[] {
  if (files.length > MAX_BATCH_FILES) {
    throw errors.JOB_TOO_MANY_FILES(`${what} has more than ${MAX_BATCH_FILES} files; submit it in parts.`)
  }
  return files
}

/** The pattern (relative to its base folder) as a RegExp over `/`-separated relative paths. */
export function globRegExp(pattern: string): RegExp {
  let source = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string
    if (c === '*' && pattern[i + 1] === '*') {
      // `**/` matches any number of folders (none included); a trailing `**` anything below.
      if (pattern[i + 2] === '/') {
        source += '(?:[^/]+/)*'
        i += 2
      } else {
        source += '.*'
        i += 1
      }
    } else if (c === '*') source += '[^/]*'
    else if (c === '?') source += '[^/]'
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}
