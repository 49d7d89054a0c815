/**
 * `npm run build` (and so `npm pack`): the package's dist/. tsc writes the type declarations; esbuild writes
 * the JavaScript as one module graph split into chunks, so that `dictum serve` loads a few files instead of
 * ~540 ES modules one by one (Node 20 has no compile cache: that loading was most of its start-up).
 *
 * Every file a process or thread starts from, or imports by its path, is an entry point and keeps its place
 * in dist/ (`dist/cli/index.js`, `dist/kernel/engine-runner/host-process.js`, the worker threads, each
 * built-in engine and provider, `dist/sdk/plugin.js`). Code that several entries share is in
 * `dist/chunks/`, once: the server, the built-in plugins it discovers and a third-party plugin importing
 * `dictum-local/plugin` all get the same modules (one TypeBox, one `DictumError`, one contract).
 *
 * Packages stay in node_modules, imported at run time as before, except TypeBox: its ~250 ES module files
 * are bundled (everything imports it, and it is pure JavaScript).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { type BuildOptions, build, type Plugin } from 'esbuild'

const ROOT = path.resolve(import.meta.dirname, '..')
const DIST = path.join(ROOT, 'dist')
/**
 * Packages bundled into dist/ with what they import, rather than imported from node_modules at run time:
 * the pure JavaScript that every start of `dictum serve` loads (TypeBox's ~250 ES modules, Fastify's and
 * its dependencies' ~190 CommonJS files). The rest stay in node_modules: native code (better-sqlite3,
 * sherpa-onnx, koffi), packages that read files of their own (Swagger UI) and what loads only when needed.
 */
const BUNDLED_PACKAGES = ['@sinclair/typebox', 'fastify', 'fastify-plugin', 'awilix', '@fastify/multipart']
/**
 * What the bundled packages load only when used, left in node_modules so that no start parses them: the
 * schema compilers (Ajv, fast-json-stringify: at a route's first request, http/lazy-schema-compilers.ts) and
 * `inject` (light-my-request).
 */
const LOADED_LATER = [
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
 * bundled, the code sits in an entry or a chunk, so each use is replaced by the URL the module's compiled
 * file has in dist/ (`dist/kernel/engine-runner/engine-host.js`): first by a marker naming it, then, in
 * each output file, by that file's own `import.meta.url` plus the relative path (known only once written).
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
 * Fastify's lib/server.js requires `node:http2` at its top, for servers made with the `http2` option, which
 * dictum never sets: loading Node's HTTP/2 module was ~10 ms of every `dictum serve` start. The bundled copy
 * requires it when such a server is made instead. Each rewrite must match exactly once: a Fastify release
 * that changes these lines fails the build here instead of bundling them unchanged.
 */
const FASTIFY_HTTP2_REWRITES: [string, string][] = [
  ["const http2 = require('node:http2')\n", ''],
  ['http2.createSecureServer(', "require('node:http2').createSecureServer("],
  ['http2.createServer(', "require('node:http2').createServer("],
]

const http2WhenUsed: Plugin = {
  name: 'fastify-http2-when-used',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]node_modules[\\/]fastify[\\/]lib[\\/]server\.js$/ }, (args) => {
      let source = readFileSync(args.path, 'utf8')
      for (const [from, to] of FASTIFY_HTTP2_REWRITES) {
        const count = source.split(from).length - 1
        if (count !== 1)
          throw new Error(`${args.path}: expected ${JSON.stringify(from)} once, found ${count}`)
        source = source.replace(from, to)
      }
      return { contents: source, loader: 'js' }
    })
  },
}

const ESBUILD_OPTIONS: BuildOptions = {
  absWorkingDir: ROOT,
  entryPoints: entryPoints(),
  outdir: DIST,
  outbase: ROOT,
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  // Less to parse at each start (~10 % of dictum serve's CPU until it answers); names stay, and the
  // source maps beside the files give the lines (node --enable-source-maps).
  minifyWhitespace: true,
  minifySyntax: true,
  metafile: true,
  logLevel: 'warning',
  plugins: [moduleUrls, packagesOutside, http2WhenUsed],
  // The bundled CommonJS packages require Node's modules (and the packages left outside) at run time.
  banner: {
    js: "import { createRequire as __dictumCreateRequire } from 'node:module'; const require = __dictumCreateRequire(import.meta.url);",
  },
}

/** Replaces each marker in the written files by the module's URL, relative to the file holding it. */
function resolveMarkers(outputs: string[]): void {
  for (const output of outputs.filter((file) => file.endsWith('.js'))) {
    const file = path.join(ROOT, output)
    const toDist = path.relative(path.dirname(file), DIST).split(path.sep).join('/') || '.'
    const code = readFileSync(file, 'utf8')
    const resolved = code.replace(
      new RegExp(`${MARKER}\\("([^"]+)"\\)`, 'g'),
      (_, compiled: string) => `new URL(${JSON.stringify(`${toDist}/${compiled}`)}, import.meta.url).href`,
    )
    if (resolved.includes(MARKER)) throw new Error(`${output}: a module URL marker was left unresolved`)
    if (resolved !== code) writeFileSync(file, resolved)
  }
}

async function main(): Promise<void> {
  // `--js-only` (while working on the build): the JavaScript again, the declarations left as they are.
  const jsOnly = process.argv.includes('--js-only')
  rmSync(jsOnly ? path.join(DIST, 'chunks') : DIST, { recursive: true, force: true })
  if (!jsOnly) writeDeclarations()
  const result = await build(ESBUILD_OPTIONS)
  resolveMarkers(Object.keys(result.metafile?.outputs ?? {}))
}

function writeDeclarations(): void {
  // The declarations (tsconfig.build.json: emitDeclarationOnly), for the SDK's users.
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' })
}

await main()
