/** Finds the pocketsphinx shared libraries on disk, without loading them (probe runs in the API process). */
import { existsSync } from 'node:fs'
import path from 'node:path'

export const LIBRARY_NAMES = {
  pocketsphinx: 'libpocketsphinx.so.3',
  sphinxbase: 'libsphinxbase.so.3',
} as const

export interface LibraryPaths {
  pocketsphinx: string
  sphinxbase: string
}

const multiarch: Partial<Record<string, string>> = {
  x64: 'x86_64-linux-gnu',
  arm64: 'aarch64-linux-gnu',
  arm: 'arm-linux-gnueabihf',
}

/** The folders the dynamic loader would search for a library given by name (the usual ones). */
export function systemLibraryDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const triplet = multiarch[process.arch]
  const fromEnv = (env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean)
  const arch = triplet ? [`/usr/lib/${triplet}`, `/lib/${triplet}`, `/usr/local/lib/${triplet}`] : []
  return [...fromEnv, ...arch, '/usr/local/lib', '/usr/lib', '/lib', '/usr/lib64', '/lib64']
}

/** Both libraries' paths, from `libraryDir` when given, else from the system folders; null when absent. */
export function findLibraries(libraryDir?: string): LibraryPaths | null {
  const dirs = libraryDir ? [libraryDir] : systemLibraryDirs()
  const find = (name: string) => dirs.map((dir) => path.join(dir, name)).find((file) => existsSync(file))
  const pocketsphinx = find(LIBRARY_NAMES.pocketsphinx)
  const sphinxbase = find(LIBRARY_NAMES.sphinxbase)
  return pocketsphinx && sphinxbase ? { pocketsphinx, sphinxbase } : null
}
