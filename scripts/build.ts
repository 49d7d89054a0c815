/**
 * `npm run build` (and so `npm pack`): the package's dist/. tsc writes the type declarations; esbuild writes
 * the JavaScript as one CommonJS file, `dist/dictum.cjs`, holding every module of dictum, each evaluated when
 * first imported. `lib/bundle-loader.ts` (built beside it) compiles it with a V8 code cache kept on disk: Node
 * 20 has no compile cache for ES modules, and resolving, compiling and linking the ~30 ES modules `dictum
 * serve` loaded was ~70 ms of its start (docs/benchmarks.md).
 *
 * Every file a process or thread starts from, or imports by its path, keeps its place in dist/ as a small
 * ES module that loads the bundle and re-exports the module's exports (`dist/cli/index.js`,
 * `dist/kernel/engine-runner/host-process.js`, the worker threads, each built-in engine and provider,
 * `dist/sdk/plugin.js`). A process has one bundle: the server, the built-in plugins it discovers and a
 * third-party plugin importing `dictum-local/plugin` all get the same modules (one TypeBox, one
 * `DictumError`, one contract).
 *
 * Packages stay in node_modules, required at run time, except TypeBox, Fastify and the few others every
 * start loads (BUNDLED_PACKAGES).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { type BuildOptions, build, type Plugin } from 'esbuild'
import { LAZY_BUILTIN, lazyBuiltins } from './lazy-builtins.ts'

const ROOT = path.resolve(import.meta.dirname, '..')
const DIST = path.join(ROOT, 'dist')
/**
 * Packages bundled into dist/ with what they import, rather than imported from node_modules at run time:
 * the pure JavaScript that every start of `dictum serve` loads (TypeBox's ~250 ES modules, Fastify's and
 * its dependencies' ~190 CommonJS files, better-sqlite3's JavaScript: ~8 ms of each start read from its 14
 * files). The rest stay in node_modules: native code (better-sqlite3's addon, which storage/database.ts
 * names itself, sherpa-onnx, koffi), packages that read files of their own (Swagger UI) and what loads only
 * when needed.
 */
const BUNDLED_PACKAGES = [
  '@sinclair/typebox',
  'fastify',
  'fastify-plugin',
  'awilix',
  '@fastify/multipart',
  'better-sqlite3',
]
/**
 * What the bundled packages load only when used, left in node_modules so that no start parses them: the
 * schema compilers (Ajv, fast-json-stringify: at a route's first request, http/lazy-schema-compilers.ts),
 * `inject` (light-my-request), and `bindings`, with which better-sqlite3 finds its addon when not told
 * where it is (dictum tells it).
 */
const LOADED_LATER = [
  'bindings',
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  '@fastify/merge-json-schemas',
  'ajv',
  'ajv-formats',
  'fast-json-stringify',
  'fast-uri',
  'json-schema-ref-resolver',
  'light-my-request',
]

/** The files a process, a worker thread or the plugin discovery starts from (relative to the root). */
function entryPoints(root = ROOT): string[] {
  const plugins = ['engines', 'providers'].flatMap((folder) =>
    readdirSync(path.join(root, folder), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(path.join(root, folder, entry.name, 'index.ts')))
      .map((entry) => `${folder}/${entry.name}/index.ts`),
  )
  return [
    'cli/index.ts',
    'sdk/plugin.ts',
    'sdk/testing.ts',
    'kernel/engine-runner/host-process.ts',
    ...workerModules(root),
    ...plugins,
  ]
}

/** The modules started as worker threads: `startModuleWorker(import.meta.url, 'name')` names a sibling file. */
function workerModules(root: string): string[] {
  const found: string[] = []
  const visit = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = path.posix.join(dir, entry.name)
      if (entry.isDirectory()) visit(relative)
      else if (entry.name.endsWith('.ts')) {
        const source = readFileSync(path.join(root, relative), 'utf8')
        for (const match of source.matchAll(/startModuleWorker\(import\.meta\.url, '([\w-]+)'\)/g))
          found.push(path.posix.join(dir, `${match[1]}.ts`))
      }
    }
  }
  for (const dir of SOURCE_FOLDERS) visit(dir)
  return found.sort()
}

/** The folders of the package's code (tsconfig.build.json's `include`). */
const SOURCE_FOLDERS = (
  JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] }
).include

/**
 * `import.meta.url` in a module means its own file (a sibling to start, a package to resolve from). Once
 * bundled, the code sits in dist/dictum.cjs, so each use is replaced by the URL the module's file would have
 * in dist/ (`dist/kernel/engine-runner/engine-host.js`): first by a marker naming it, then by that path
 * relative to the bundle's own URL (finishBundle). The files a module starts from its URL (the engine
 * host, worker threads) are the entry points' small modules, there.
 */
const MARKER = '__dictumModuleUrl'

const moduleUrls: Plugin = {
  name: 'module-urls',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, (args) => {
      const relative = path.relative(ROOT, args.path).split(path.sep).join('/')
      if (relative.startsWith('node_modules/')) return undefined
      const compiled = JSON.stringify(relative.replace(/\.ts$/, '.js'))
      const source = readFileSync(args.path, 'utf8').replace(
        /\bimport\.meta\.url\b/g,
        `${MARKER}(${compiled})`,
      )
      return { contents: source, loader: 'ts' }
    })
  },
}

/** A package's name from an import specifier (`@scope/name/sub` → `@scope/name`). */
function packageName(specifier: string): string {
  const parts = specifier.split('/')
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/')
}

/** dictum's imports of packages stay imports, except of BUNDLED_PACKAGES, whose own imports are bundled. */
const packagesOutside: Plugin = {
  name: 'packages-outside',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { path: args.path, external: true }
      const fromPackage = args.importer.split(path.sep).includes('node_modules')
      const name = packageName(args.path)
      const bundled = fromPackage ? !LOADED_LATER.includes(name) : BUNDLED_PACKAGES.includes(name)
      return bundled ? undefined : { path: args.path, external: true }
    })
  },
}

/**
 * Fastify's lib/server.js requires `node:http2` and `node:https` (with TLS) at its top, for HTTP/2 and HTTPS
 * servers, which dictum never makes: loading them was ~12 ms of every `dictum serve` start. The bundled copy
 * requires each where such a server is made instead. Each rewrite must match exactly once: a Fastify
 * release that changes these lines fails the build here instead of bundling them unchanged.
 */
const FASTIFY_SERVER_REWRITES: [string, string][] = [
  ["const https = require('node:https')\n", ''],
  ["const http2 = require('node:http2')\n", ''],
  ['http2.createSecureServer(', "require('node:http2').createSecureServer("],
  ['http2.createServer(', "require('node:http2').createServer("],
  ['https.createServer(', "require('node:https').createServer("],
]

const serverModulesWhenUsed: Plugin = {
  name: 'fastify-server-modules-when-used',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]node_modules[\\/]fastify[\\/]lib[\\/]server\.js$/ }, (args) => {
      let source = readFileSync(args.path, 'utf8')
      for (const [from, to] of FASTIFY_SERVER_REWRITES) {
        const count = source.split(from).length - 1
        if (count !== 1)
          throw new Error(`${args.path}: expected ${JSON.stringify(from)} once, found ${count}`)
        source = source.replace(from, to)
      }
      return { contents: source, loader: 'js' }
    })
  },
}

/** What the bundle and the export listing share. */
const COMMON_OPTIONS: BuildOptions = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  target: 'node20',
  // Less to read and parse; names stay (stack traces name the functions), and the source map beside the
  // bundle (dist/dictum.cjs.map) maps a stack trace's positions back to the sources. Node applies source
  // maps to modules it loads, not to code compiled with vm.Script (lib/bundle-loader.ts).
  minifyWhitespace: true,
  minifySyntax: true,
  metafile: true,
  logLevel: 'warning',
  plugins: [moduleUrls, packagesOutside, serverModulesWhenUsed],
}

/** An entry point's name in the bundle's `modules` and its place in dist/: `engines/vosk/index`. */
const entryName = (entry: string) => entry.replace(/\.ts$/, '')

/**
 * The bundle's own entry: each entry point as a function importing it, so that loading the bundle runs
 * nothing and each process evaluates only what it imports.
 */
function bundleEntry(entries: string[]): string {
  const lines = entries.map(
    (e) => `  ${JSON.stringify(entryName(e))}: () => import(${JSON.stringify(`./${e}`)}),`,
  )
  return `export const modules = {\n${lines.join('\n')}\n}\n`
}

const BUNDLE_FILE = path.join(DIST, 'dictum.cjs')

function bundleOptions(entries: string[]): BuildOptions {
  return {
    ...COMMON_OPTIONS,
    stdin: { contents: bundleEntry(entries), resolveDir: ROOT, sourcefile: 'dist-entry.ts', loader: 'ts' },
    outfile: BUNDLE_FILE,
    format: 'cjs',
    // `import('ws')` becomes `require('ws')`: code compiled by lib/bundle-loader.ts has no `import()` on
    // Node 20 without a flag. The packages imported so are CommonJS; plugins, which may be ES modules, are
    // imported through the loader's own `import()` (kernel/engine-runner/find-definition.ts).
    supported: { 'dynamic-import': false },
    sourcemap: 'linked',
    // lib/bundle-loader.ts hands the bundle Node's `import.meta.resolve` (packages' `exports` for `import`).
    define: { 'import.meta.resolve': '__dictumResolve' },
    banner: {
      js: `'use strict';const __dictumBundleUrl=require('node:url').pathToFileURL(__filename).href;${LAZY_BUILTIN}`,
    },
  }
}

/**
 * Each entry point's export names, from the same code built as ES modules (not written): what the small
 * module left at its place re-exports.
 */
async function entryExports(entries: string[]): Promise<Map<string, string[]>> {
  const result = await build({
    ...COMMON_OPTIONS,
    entryPoints: entries,
    outdir: DIST,
    outbase: ROOT,
    format: 'esm',
    splitting: true,
    write: false,
  })
  const found = new Map<string, string[]>()
  for (const output of Object.values(result.metafile?.outputs ?? {}))
    if (output.entryPoint) found.set(output.entryPoint, output.exports)
  for (const entry of entries)
    if (!found.has(entry)) throw new Error(`${entry}: no exports listed by esbuild`)
  return found
}

/** The entry points a process starts from, whose bundle writes the code cache (lib/bundle-loader.ts). */
const PROCESS_ENTRIES = ['cli/index.ts', 'kernel/engine-runner/host-process.ts']

/** The small ES module at an entry point's place: loads the bundle, imports the module, re-exports it. */
function entryModule(entry: string, names: string[]): string {
  const loader = path.relative(path.dirname(path.join(DIST, entry)), path.join(DIST, 'lib/bundle-loader.js'))
  const named = names.filter((name) => name !== 'default')
  const load = PROCESS_ENTRIES.includes(entry) ? 'launcherBundle' : 'packageBundle'
  return [
    '// Generated by scripts/build.ts: the module lives in ../dictum.cjs (lib/bundle-loader.ts).',
    `import { ${load} } from ${JSON.stringify(loader.startsWith('.') ? loader : `./${loader}`)}`,
    `const m = await ${load}().exports.modules[${JSON.stringify(entryName(entry))}]()`,
    ...(names.includes('default') ? ['export default m.default'] : []),
    ...(named.length > 0 ? [`export const { ${named.join(', ')} } = m`] : []),
    '',
  ].join('\n')
}

/**
 * The bundle as written: each marker replaced by the URL its module's file would have in dist/, the
 * modules of scripts/lazy-builtins.ts made lazy, in ASCII.
 */
function finishBundle(file: string): void {
  const code = lazyBuiltins(readFileSync(file, 'utf8'))
  const resolved = code.replace(
    new RegExp(`${MARKER}\\("([^"]+)"\\)`, 'g'),
    (_, compiled: string) => `new URL(${JSON.stringify(`./${compiled}`)}, __dictumBundleUrl).href`,
  )
  if (resolved.includes(MARKER)) throw new Error(`${file}: a module URL marker was left unresolved`)
  // A CommonJS file has no import.meta: one left would be a syntax error at the first start.
  if (/\bimport\.meta\b/.test(resolved)) throw new Error(`${file}: import.meta left in the bundle`)
  writeFileSync(file, asciiOnly(resolved))
}

/**
 * The bundle in ASCII. esbuild escapes strings and templates already, not regular expressions (the
 * typographic quotes and ellipsis of the text rules), where a `\uXXXX` escape matches the same character
 * (a UTF-16 unit each, so characters beyond them become the same pair of escapes). One non-ASCII character
 * made the whole 1.6 MB source a two-byte string, read with UTF-8 decoding: ~25 ms of each start on this
 * machine, against ~6 for ASCII read as Latin-1 (lib/bundle-loader.ts).
 */
function asciiOnly(code: string): string {
  return code.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

async function main(): Promise<void> {
  // `--js-only` (while working on the build): the JavaScript again, the declarations left as they are.
  const jsOnly = process.argv.includes('--js-only')
  if (!jsOnly) {
    rmSync(DIST, { recursive: true, force: true })
    writeDeclarations()
  }
  const entries = entryPoints()
  const exportsByEntry = await entryExports(entries)
  await build(bundleOptions(entries))
  finishBundle(BUNDLE_FILE)
  await build({
    absWorkingDir: ROOT,
    entryPoints: ['lib/bundle-loader.ts'],
    outfile: path.join(DIST, 'lib/bundle-loader.js'),
    // With the little it imports (lib/cache-files.ts): the loader runs before the bundle exists.
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  })
  for (const entry of entries) {
    const file = path.join(DIST, `${entryName(entry)}.js`)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, entryModule(entry, exportsByEntry.get(entry) ?? []))
  }
}

function writeDeclarations(): void {
  // The declarations (tsconfig.build.json: emitDeclarationOnly), for the SDK's users.
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' })
}

await main()
