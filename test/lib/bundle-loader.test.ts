/**
 * How the installed package runs its one CommonJS file (lib/bundle-loader.ts), on small bundles written
 * here: the file runs as Node runs CommonJS (plus `import()` and `import.meta.resolve` handed in), and its
 * V8 code cache is written, used, refused when the bundle changed or the cache is corrupt, and never stops
 * the code from running (an unwritable folder, the cache turned off).
 */
import { execFile } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import { type CacheState, compileCacheDir, type LoadedBundle, loadBundle } from '../../lib/bundle-loader.ts'
import { repoRoot, tempDir } from '../cli/run-cli.ts'

const run = promisify(execFile)
const CHILD = path.join(repoRoot, 'test/fixtures/bundle-loader-child.ts')

interface Exports {
  answer: number
  file: string
  dir: string
  strict: boolean
  resolve: (specifier: string) => string
  importModule: (specifier: string) => Promise<Record<string, unknown>>
  square: (n: number) => number
}

function bundleIn(dir: string, answer = 42): string {
  writeFileSync(path.join(dir, 'helper.cjs'), `exports.value = ${answer}\n`)
  writeFileSync(path.join(dir, 'esm.mjs'), `export const kind = 'an ES module'\n`)
  const file = path.join(dir, 'bundle.cjs')
  writeFileSync(
    file,
    `'use strict'
exports.answer = require('./helper.cjs').value
exports.file = __filename
exports.dir = __dirname
exports.strict = (function () { return this === undefined })()
exports.resolve = (specifier) => __dictumResolve(specifier)
exports.importModule = (specifier) => __dictumImport(specifier)
exports.square = (n) => n * n
`,
  )
  return file
}

const exportsOf = (bundle: LoadedBundle) => bundle.exports as unknown as Exports
const cacheFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.bin'))

interface ChildLoad {
  state: CacheState
  file: string | null
  complete: boolean
  square: number
  saved: boolean
}

/**
 * Loads the bundle in a process of its own, as each start of dictum does: within one process V8 finds a
 * script it compiled already in its own memory, and never reads the cache given.
 */
async function loadInChild(
  file: string,
  cacheDir: string,
  save: 'no' | 'complete' | 'partial' = 'no',
  nodeOptions: string[] = [],
): Promise<ChildLoad> {
  // A script file, its settings as arguments: the cache is keyed by the process's Node options
  // (process.execArgv), which hold the code given with -e.
  const args = [...nodeOptions, '--import', 'tsx', CHILD, file, cacheDir, save]
  const { stdout } = await run(process.execPath, args, { cwd: repoRoot })
  return JSON.parse(stdout) as ChildLoad
}

t.test('the bundle runs as Node runs CommonJS, with import() and import.meta.resolve', async (t) => {
  const dir = tempDir(t, 'dictum-bundle-')
  const file = bundleIn(dir)
  const bundle = loadBundle(file, null)
  const loaded = exportsOf(bundle)
  t.equal(loaded.answer, 42, 'require() resolves from the bundle file')
  t.equal(loaded.file, file)
  t.equal(loaded.dir, dir)
  t.ok(loaded.strict, "'use strict' holds")
  t.match(loaded.resolve('tap'), /^file:\/\/.*\/node_modules\/tap\//, 'packages resolve as import does')
  const imported = await loaded.importModule(pathToFileURL(path.join(dir, 'esm.mjs')).href)
  t.equal(imported.kind, 'an ES module', 'import() loads an ES module (a plugin may be one)')
  t.same(bundle.cache, { state: 'off', file: null, complete: false }, 'no cache folder: no cache')
  t.notOk(bundle.saveCache(true), 'nothing to save to')
})

t.test("import() of an entry point's file beside the bundle takes the bundle's own module", async (t) => {
  const dir = tempDir(t, 'dictum-bundle-')
  const file = path.join(dir, 'bundle.cjs')
  // As scripts/build.ts writes it: `modules` names each entry point; the small ES module at an entry's
  // place (plugins/echo.js here) would load the bundle a second time if Node imported it.
  mkdirSync(path.join(dir, 'plugins'))
  writeFileSync(path.join(dir, 'plugins/echo.js'), 'throw new Error("the ES module was imported")\n')
  writeFileSync(path.join(dir, 'plugins/other.mjs'), 'export const kind = "not in the bundle"\n')
  writeFileSync(
    file,
    `'use strict'
const echo = { default: { id: 'echo' }, engine: { id: 'echo' } }
exports.modules = { 'plugins/echo': () => Promise.resolve(echo) }
exports.echo = echo
exports.importModule = (specifier) => __dictumImport(specifier)
`,
  )
  const loaded = loadBundle(file, null).exports as { echo: unknown } & Pick<Exports, 'importModule'>
  const url = (name: string) => pathToFileURL(path.join(dir, name)).href
  t.equal(await loaded.importModule(url('plugins/echo.js')), loaded.echo, "the bundle's module, not a copy")
  t.same(
    await loaded.importModule(url('plugins/other.mjs')),
    { kind: 'not in the bundle' },
    'others: import()',
  )
  await t.rejects(loaded.importModule(url('plugins/missing.js')), /Cannot find module/, 'a missing file')
})

async function cacheWritten(t: Test) {
  const dir = tempDir(t, 'dictum-bundle-')
  const cacheDir = path.join(dir, 'cache')
  const file = bundleIn(dir)
  const first = await loadInChild(file, cacheDir, 'partial')
  t.equal(first.state, 'absent', 'the first load finds no cache')
  t.equal(first.square, 49)
  t.ok(first.saved, 'the cache is written')
  t.same(cacheFiles(cacheDir), [path.basename(first.file as string)])
  t.equal(statSync(cacheDir).mode & 0o777, 0o700, 'in a folder of the user only')
  return { cacheDir, file, first }
}

t.test('the cache is written, then used by the next start', async (t) => {
  const { cacheDir, file, first } = await cacheWritten(t)
  const second = await loadInChild(file, cacheDir)
  t.equal(second.state, 'used', 'V8 took the cache')
  t.equal(second.file, first.file)
  t.equal(second.square, 49)
  t.notOk(second.complete, 'written as a command ending at once writes it')
  t.ok(
    (await loadInChild(file, cacheDir, 'complete')).saved,
    'a process whose start was done writes it again',
  )
  const third = await loadInChild(file, cacheDir)
  t.same([third.state, third.complete], ['used', true], 'and the next start finds it complete')
})

t.test('a process started with other Node options has a cache of its own', async (t) => {
  const { cacheDir, file, first } = await cacheWritten(t)
  // An engine host runs with --max-old-space-size: V8 refused the cache made without it.
  const host = ['--max-old-space-size=3000']
  const other = await loadInChild(file, cacheDir, 'complete', host)
  t.equal(other.state, 'absent', 'not the cache of the other options')
  t.not(other.file, first.file)
  t.same(cacheFiles(cacheDir).sort(), [first.file, other.file].map((f) => path.basename(f as string)).sort())
  t.equal((await loadInChild(file, cacheDir, 'no', host)).state, 'used', 'its own is taken')
  t.equal((await loadInChild(file, cacheDir)).state, 'used', 'and the first one still is')
})

t.test('a changed bundle does not find the old cache, and its own replaces it', async (t) => {
  const { cacheDir, file, first } = await cacheWritten(t)
  // Same length (V8 checks only that), other code, a later modification time.
  writeFileSync(file, readFileSync(file, 'utf8').replace('n * n', 'n + n'))
  const later = new Date(Date.now() + 10_000)
  utimesSync(file, later, later)
  const changed = await loadInChild(file, cacheDir, 'partial')
  t.equal(changed.state, 'absent', 'the cache of the old bundle is not this one')
  t.equal(changed.square, 14, 'the new code runs')
  t.same(cacheFiles(cacheDir), [path.basename(changed.file as string)], 'the old cache is removed')
  t.not(changed.file, first.file)
  t.equal((await loadInChild(file, cacheDir)).state, 'used')
})

t.test('a damaged cache is never given to V8: the code runs, and the cache is written again', async (t) => {
  const { cacheDir, file, first } = await cacheWritten(t)
  const cacheFile = first.file as string
  const intact = readFileSync(cacheFile)
  // V8 checks the data's version and length, not the data: these bytes crashed the process.
  const damaged = Buffer.from(intact)
  damaged.fill(7, 40, 60)
  for (const [what, bytes] of [
    ['data changed', damaged],
    ['cut short', intact.subarray(0, intact.length - 9)],
    ['no header', intact.subarray(16)],
  ] as const) {
    writeFileSync(cacheFile, bytes)
    const refused = await loadInChild(file, cacheDir)
    t.equal(refused.state, 'rejected', `${what}: refused`)
    t.equal(refused.square, 49, `${what}: the code runs`)
  }
  t.ok((await loadInChild(file, cacheDir, 'partial')).saved)
  t.equal((await loadInChild(file, cacheDir)).state, 'used', 'the cache written again is taken')
})

t.test('a cache folder that cannot be made costs the cache, not the run', async (t) => {
  const dir = tempDir(t, 'dictum-bundle-')
  const file = bundleIn(dir)
  const blocker = path.join(dir, 'a-file')
  writeFileSync(blocker, '')
  const bundle = await loadInChild(file, path.join(blocker, 'cache'), 'complete')
  t.equal(bundle.state, 'absent')
  t.equal(bundle.square, 49)
  t.notOk(bundle.saved, 'the write fails quietly')
})

t.test('where the cache goes', async (t) => {
  t.equal(compileCacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/u' }), '/x/cache/dictum/compile-cache')
  t.equal(compileCacheDir({ HOME: '/home/u' }), '/home/u/.cache/dictum/compile-cache')
  t.equal(compileCacheDir({ HOME: '/home/u', NODE_DISABLE_COMPILE_CACHE: '1' }), null, "Node's switch")
})
