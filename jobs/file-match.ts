/**
 * The files of a batch submission: the audio files of a folder (not its subfolders), or the files an absolute
 * glob matches (`*` and `?` within one path segment, `**` for any number of folders). Sorted by path. Node 20
 * has no glob of its own, and these three wildcards are all a batch needs.
 */

import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import { errors } from '../errors/catalogue.ts'
import { jobsErrors } from './errors.ts'

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
  checkGlob(pattern)
  const segments = pattern.split('/')
  const firstWild = segments.findIndex(hasWildcard)
  const base = segments.slice(0, firstWild).join('/') || '/'
  const matches = globMatcher(segments.slice(firstWild).join('/'))
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
      // A huge folder is read in one go: let other requests through now and then.
      if (scanned % 1000 === 999) await new Promise((resolve) => setImmediate(resolve))
      if (++scanned > MAX_ENTRIES_SCANNED) {
        throw jobsErrors.JOB_TOO_MANY_FILES(
          `the glob looks through more than ${MAX_ENTRIES_SCANNED} entries; narrow it.`,
        )
      }
      const rel = relative ? `${relative}/${entry.name}` : entry.name
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) await walk(full, rel)
      else if (entry.isFile() && matches(rel)) {
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
    throw jobsErrors.JOB_TOO_MANY_FILES(`${what} has more than ${MAX_BATCH_FILES} files; submit it in parts.`)
  }
  return files
}

/** Longest glob accepted, and most wildcards in it: a bound on the work of matching each entry. */
export const MAX_GLOB_LENGTH = 1024
export const MAX_GLOB_WILDCARDS = 32

/** The 400 for a glob too long or with too many wildcards; matching stays cheap for any glob accepted. */
export function checkGlob(pattern: string): void {
  const wildcards = pattern.match(/\*\*|[*?]/g)?.length ?? 0
  if (pattern.length > MAX_GLOB_LENGTH || wildcards > MAX_GLOB_WILDCARDS) {
    throw errors.INVALID_REQUEST(
      `glob must be at most ${MAX_GLOB_LENGTH} characters with at most ${MAX_GLOB_WILDCARDS} wildcards ` +
        `(it has ${pattern.length} and ${wildcards}).`,
      { extra: { param: 'glob' } },
    )
  }
}

/**
 * The pattern (relative to its base folder) as a test of `/`-separated relative paths. A segment `**` matches
 * any number of folders (none included; last, anything below); in any other segment `*` matches any run of
 * characters and `?` one character, within the segment (`**` there is `*`).
 *
 * No backtracking regular expression: both levels use the greedy wildcard walk, which goes back at most to
 * the last star, so a match costs at most (pattern length × path length) steps whatever the pattern
 * (`*a*a*a…b` over a name of forty `a` took seconds as a RegExp).
 */
export function globMatcher(pattern: string): (relative: string) => boolean {
  const segments = pattern.split('/').map((segment) => (segment === '**' ? ANY_FOLDERS : Array.from(segment)))
  return (relative) =>
    wildcardMatch(
      segments,
      relative.split('/'),
      (segment, name) => wildcardMatch(segment as string[], Array.from(name), sameCharacter, '*'),
      ANY_FOLDERS,
    )
}

const ANY_FOLDERS = Symbol('**')
const sameCharacter = (pattern: string, name: string) => pattern === '?' || pattern === name

/**
 * The greedy wildcard walk over sequences: `star` matches any run of items, any other pattern item matches
 * one item when `same` says so. On a mismatch after a star, the star takes one more item and the walk resumes
 * just after it: earlier stars never need revisiting, since a later star can take whatever they would have.
 */
function wildcardMatch<P, S>(pattern: P[], items: S[], same: (p: P, s: S) => boolean, star: P): boolean {
  let p = 0
  let s = 0
  let lastStar = -1
  let resumeAt = 0
  while (s < items.length) {
    if (p < pattern.length && pattern[p] === star) {
      lastStar = p++
      resumeAt = s
    } else if (p < pattern.length && same(pattern[p] as P, items[s] as S)) {
      p++
      s++
    } else if (lastStar >= 0) {
      p = lastStar + 1
      s = ++resumeAt
    } else return false
  }
  while (p < pattern.length && pattern[p] === star) p++
  return p === pattern.length
}
