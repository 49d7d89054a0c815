/**
 * How the installed package runs its code: `dist/dictum.cjs`, every module of dictum in one CommonJS file
 * (scripts/build.ts), compiled with a V8 code cache kept on disk, so that a start after the first one
 * skips compiling it. Node 20 has no compile cache of its own (Node 22's `module.enableCompileCache` does
 * not reach code compiled here), and resolving, compiling and linking the ES modules of the split bundle
 * `dictum serve` loaded before was ~100 ms of its start (docs/benchmarks.md). This file is built on its
 * own into `dist/lib/bundle-loader.js`; the launcher (`bin/dictum.js`) and the small ES modules left at the
 * entry points' places in `dist/` (the engine host, worker threads, built-in plugins, the SDK) all load the
 * bundle through it, so each process has one copy of every module (one TypeBox, one `DictumError`).
 *
 * The cache: `$XDG_CACHE_HOME/dictum/compile-cache/` (else `~/.cache/…`), one file per bundle (its path,
 * size and modification time) and Node (version, architecture, options); writing one removes the older
 * ones of the same bundle and options. It holds the code compiled when it was written: a command that
 * ends at once (`dictum --version`) writes a small one at its exit, and the first process still running
 * SAVE_AFTER_MS after its start (`dictum serve`, listening and warmed up) writes a complete one, which
 * later starts keep. Only a process's own start writes (`dictum`, an engine host), not its worker threads.
 * `NODE_DISABLE_COMPILE_CACHE` (Node's own switch) turns it off. Nothing here may stop dictum from
 * running: a missing, damaged, refused or unwritable cache only costs the compile.
 */
import { readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import vm from 'node:vm'
import zlib from 'node:zlib'
import { dictumCacheDir, writeCacheFile } from './cache-files.ts'

/** What the cache did for a load: read and used, refused by V8, not there, or turned off. */
export type CacheState = 'used' | 'rejected' | 'absent' | 'off'

export interface LoadedBundle {
  /** The bundle's `module.exports`. */
  exports: Record<string, unknown>
  /** `complete`: the cache used was written by a process whose start was done (see launcherBundle). */
  cache: { state: CacheState; file: string | null; complete: boolean }
  /** Writes the code compiled so far as the cache (atomically); false when it could not. */
  saveCache(complete: boolean): boolean
}

/** Where caches go for this environment, or null when turned off. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  // zlib.crc32 (Node 20.15) checks a cache before V8 is given it: without it, no cache.
  if (env.NODE_DISABLE_COMPILE_CACHE || typeof zlib.crc32 !== 'function') return null
  return path.join(dictumCacheDir(env), 'compile-cache')
}

/**
 * Compiles and runs the CommonJS file `file` as Node would (`require`, `module`, `__filename` relative to
 * it), handing it Node's `import()` as `__dictumImport` and `import.meta.resolve` as `__dictumResolve`.
 */
export function loadBundle(file: string, cacheDir: string | null): LoadedBundle {
  // The build writes the bundle in ASCII (scripts/build.ts): read as Latin-1, it is a one-byte string
  // without UTF-8 decoding (~6 ms here, against ~25).
  const source = readFileSync(file, 'latin1')
  const cache = cacheDir === null ? null : cacheFileOf(file, cacheDir)
  const cached = cache === null ? undefined : readCache(cache.file)
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname, __dictumResolve, __dictumImport) {${source}\n})`,
    { filename: file, ...(cached ? { cachedData: cached.data } : {}) },
  )
  let state: CacheState = 'off'
  if (cache !== null) {
    if (cached === undefined) state = 'absent'
    else state = cached === null || script.cachedDataRejected ? 'rejected' : 'used'
  }
  const module = { exports: {} as Record<string, unknown> }
  const run = script.runInThisContext() as (...args: unknown[]) => void
  // Packages resolve from this file as from the bundle: both are in the package, above the same node_modules.
  const resolve = (specifier: string) => import.meta.resolve(specifier)
  // `import()` of a plugin (kernel/engine-runner/find-definition.ts): code compiled here has none without
  // a flag on Node 20, and a plugin is named by its absolute URL or package name, the same from here. A
  // built-in plugin is named by the small ES module at its place in dist/, which only re-exports the
  // bundle's module: that module is taken from the bundle directly, without Node's ES module loader (its
  // set-up and the eight files were ~10 ms of each `dictum serve` start).
  const distUrl = `${pathToFileURL(path.dirname(file)).href}/`
  const importModule = (specifier: string) => {
    const modules = module.exports.modules as Record<string, () => Promise<unknown>> | undefined
    const name =
      specifier.startsWith(distUrl) && specifier.endsWith('.js') ? specifier.slice(distUrl.length, -3) : ''
    const bundled = modules !== undefined && Object.hasOwn(modules, name) ? modules[name] : undefined
    return bundled ? bundled() : import(specifier)
  }
  run(module.exports, createRequire(file), module, file, path.dirname(file), resolve, importModule)
  return {
    exports: module.exports,
    cache: { state, file: cache?.file ?? null, complete: state === 'used' && cached?.complete === true },
    saveCache: (complete) =>
      cache !== null &&
      // Replacing the caches of earlier versions of the same bundle (reinstalls, upgrades).
      writeCacheFile(cache.file, cacheBytes(script.createCachedData(), complete), cache.prefix),
  }
}

/**
 * A cache file: "dictumcc", the data's CRC-32 and length, 1 when written by a process whose start was done
 * (else 0), all little-endian 32 bits, then V8's data. V8 checks its version and the source's length, not
 * its data: a corrupt cache crashed the process (measured: a segmentation fault), so the data is checked
 * here first, as Node's own compile cache does.
 */
const MAGIC = Buffer.from('dictumcc')
const HEADER_BYTES = MAGIC.length + 12

/** A cache file's data; undefined when there is none, null when it is not intact. */
export function readCache(file: string): { data: Buffer; complete: boolean } | null | undefined {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch {
    return undefined
  }
  if (bytes.length < HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return null
  const data = bytes.subarray(HEADER_BYTES)
  const intact =
    bytes.readUInt32LE(MAGIC.length + 4) === data.length &&
    bytes.readUInt32LE(MAGIC.length) === zlib.crc32(data)
  return intact ? { data, complete: bytes.readUInt32LE(MAGIC.length + 8) === 1 } : null
}

function cacheBytes(data: Buffer, complete: boolean): Buffer {
  const header = Buffer.alloc(HEADER_BYTES)
  MAGIC.copy(header)
  header.writeUInt32LE(zlib.crc32(data), MAGIC.length)
  header.writeUInt32LE(data.length, MAGIC.length + 4)
  header.writeUInt32LE(complete ? 1 : 0, MAGIC.length + 8)
  return Buffer.concat([header, data])
}

/**
 * The cache file in `dir`: its name holds the bundle's path and the process's Node options (hashed
 * together, the prefix of the bundle's caches under these options), the bundle's size and modification
 * time, and the Node that compiles it, without reading the bundle twice. V8 checks only the source's
 * length itself, so a bundle replaced by one of the same length must not find the old cache: its time
 * differs. V8 refuses a cache made under other flags (an engine host runs with `--max-old-space-size`:
 * measured, it then compiled slower than with no cache), so each way of starting Node has its own.
 */
function cacheFileOf(file: string, dir: string): { file: string; prefix: string } {
  const { size, mtimeMs } = statSync(file)
  const prefix = `${fnv1a([file, ...process.execArgv].join('\0'))}-`
  const name = `${prefix}${size}-${Math.trunc(mtimeMs)}-${process.version}-${process.arch}.bin`
  return { file: path.join(dir, name), prefix }
}

/** FNV-1a, 32 bits, in hex: the bundle's path and options in a file name (no crypto module at start). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return (hash >>> 0).toString(16).padStart(8, '0')
}

/** How long after its start a process writes the complete cache: `dictum serve` has listened and warmed up. */
export const SAVE_AFTER_MS = 3000

let loaded: LoadedBundle | null = null

/** The package's bundle, loaded once per process (`dist/dictum.cjs`, beside this file's folder). */
export function packageBundle(): LoadedBundle {
  loaded ??= loadBundle(fileURLToPath(new URL('../dictum.cjs', import.meta.url)), compileCacheDir())
  return loaded
}

/**
 * The bundle for a process's own start (the `dictum` command, an engine host), which writes the cache:
 * SAVE_AFTER_MS after its start unless the cache it used was complete already, or at its exit if it ends
 * sooner and had no cache it could use. Worker threads and imports use packageBundle: a thread's cache
 * would be the process's (same options), with what the thread compiled.
 */
export function launcherBundle(): LoadedBundle {
  const bundle = packageBundle()
  const { state, complete } = bundle.cache
  if (state === 'off' || complete) return bundle
  let saved = false
  setTimeout(() => {
    saved = true
    bundle.saveCache(true)
  }, SAVE_AFTER_MS).unref()
  if (state !== 'used') {
    process.once('exit', () => {
      if (!saved) bundle.saveCache(false)
    })
  }
  return bundle
}
