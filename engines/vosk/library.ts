/**
 * Where libvosk is, without loading it (probe runs in the API process): `libraryPath`, else the library the
 * `vosk` npm package ships for this platform. That package's own binding (ffi-napi) does not build on current
 * Node, so dictum binds the library with koffi instead and uses the package only for its files.
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

const PLATFORM_LIBRARY: Partial<Record<string, string>> = {
  'linux-x64': 'linux-x86_64/libvosk.so',
  'darwin-x64': 'osx-universal/libvosk.dylib',
  'darwin-arm64': 'osx-universal/libvosk.dylib',
  'win32-x64': 'win-x86_64/libvosk.dll',
}

export const INSTALL_LIBRARY_FIX = 'npm install vosk@0.3.39 --ignore-scripts'

/** The `vosk` npm package's folder and version, or null when it is not installed. */
export function voskPackage(): { dir: string; version: string } | null {
  try {
    const manifest = createRequire(import.meta.url).resolve('vosk/package.json')
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }
    return { dir: path.dirname(manifest), version }
  } catch {
    return null
  }
}

export type LibraryLocation = { ok: true; path: string } | { ok: false; reason: string; fix: string }

export function locateLibrary(libraryPath?: string): LibraryLocation {
  if (libraryPath) {
    return existsSync(libraryPath)
      ? { ok: true, path: libraryPath }
      : {
          ok: false,
          reason: `libvosk not found at ${libraryPath}`,
          fix: 'Fix speech.engines.vosk.libraryPath.',
        }
  }
  const relative = PLATFORM_LIBRARY[`${process.platform}-${process.arch}`]
  if (!relative) {
    return {
      ok: false,
      reason: `the vosk package ships no library for ${process.platform}-${process.arch}`,
      fix: 'Set speech.engines.vosk.libraryPath to a libvosk built for this machine.',
    }
  }
  const found = voskPackage()
  const file = found ? path.join(found.dir, 'lib', relative) : null
  if (!file || !existsSync(file)) {
    return {
      ok: false,
      reason: 'libvosk not found (the vosk npm package is not installed)',
      fix: INSTALL_LIBRARY_FIX,
    }
  }
  return { ok: true, path: file }
}
