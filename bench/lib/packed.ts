/**
 * dictum as a user installs it, for the benches that time the command line: `npm pack` (which builds dist/),
 * unpacked into a temporary folder whose node_modules is this checkout's. It runs the compiled JavaScript, as
 * an installed dictum does (no sources beside bin/, no TypeScript loader).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

const ROOT = path.resolve(import.meta.dirname, '../..')

export interface PackedDictum {
  /** `bin/dictum.js` of the unpacked package. */
  bin: string
  dir: string
  /** The environment to run it in: its code cache (lib/bundle-loader.ts) in `dir`, removed with it. */
  env: NodeJS.ProcessEnv
  remove(): void
}

export function packedDictum(): PackedDictum {
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-bench-packed-'))
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: ROOT })
    .toString()
    .trim()
    .split('\n')
    .at(-1) as string
  execFileSync('tar', ['xzf', path.join(dir, tarball), '-C', dir])
  const pkg = path.join(dir, 'package')
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'), 'dir')
  return {
    bin: path.join(pkg, 'bin/dictum.js'),
    dir,
    env: { ...process.env, XDG_CACHE_HOME: path.join(dir, 'cache') },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}
