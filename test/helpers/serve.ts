/**
 * For tests and benches that run `dictum serve`: in the test process (`serveInProcess`, the default for
 * tests: the same startServer the command runs) or as a child process (`spawnServe`, for tests whose subject
 * is the process: signals, its output, the packed binary), with a free port, waiting until it answers.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import type { BuildOptions } from '../../server/app.ts'
import { repoRoot } from './fixtures.ts'

const BIN = path.join(repoRoot, 'bin/dictum.js')

/** A loopback port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

/** Resolves once GET /v1/health answers 200 on `port`; rejects if `child` exits first or after `timeoutMs`. */
export async function untilHealthy(child: ChildProcess, port: number, timeoutMs = 60_000): Promise<void> {
  const started = performance.now()
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dictum serve exited with ${child.exitCode}`)
    const ok = await fetch(`http://127.0.0.1:${port}/v1/health`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) return
    if (performance.now() - started > timeoutMs)
      throw new Error(`dictum serve did not answer within ${timeoutMs / 1000} s`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/**
 * An environment without the user's DICTUM_* settings or config folder. Commands work in process
 * (`DICTUM_SERVER=none`) unless a test asks for a service: a dictum running on this machine must not answer.
 */
export function cleanEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('DICTUM_')) env[key] = value
  return { ...env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), DICTUM_SERVER: 'none', ...extra }
}

function tempDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-serve-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export interface ServeOptions {
  /** A data folder kept between services (a restart); default: one of its own. */
  dataDir?: string
  /** Environment beside the clean one (`cleanEnv`). */
  env?: NodeJS.ProcessEnv
  /** Default: a free one. */
  port?: number
}

/** Where a service's config file, data folder and port are (written for one service). */
function serviceFiles(t: Test, config: Record<string, unknown>, options: ServeOptions) {
  const dir = tempDir(t)
  const dataDir = options.dataDir ?? path.join(dir, 'data')
  const configFile = path.join(dir, 'config.json')
  writeFileSync(configFile, JSON.stringify(config))
  return { dir, dataDir, configFile, env: cleanEnv(dir, options.env) }
}

/**
 * `dictum serve` in a child process with this config file, a data folder of its own and a free port, once
 * it answers `/v1/health`; its stdout and stderr are kept (`output()`) unless `stdio` is 'ignore', and it is
 * killed at the test's end if it still runs.
 */
export async function spawnServe(
  t: Test,
  config: Record<string, unknown>,
  options: ServeOptions & { stdio?: 'pipe' | 'ignore' } = {},
) {
  const { dataDir, configFile, env } = serviceFiles(t, config, options)
  const port = options.port ?? (await freePort())
  const stdio = options.stdio ?? 'pipe'
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--config', configFile, '--data-dir', dataDir, '--port', String(port)],
    { env, stdio: ['ignore', stdio, stdio] },
  )
  let output = ''
  const keep = (text: string) => {
    output += text
  }
  child.stdout?.setEncoding('utf8').on('data', keep)
  child.stderr?.setEncoding('utf8').on('data', keep)
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  await untilHealthy(child, port)
  return { child, port, dataDir, configFile, env, output: () => output }
}

/**
 * What `dictum serve` runs (startServer: config file, listener, Wyoming, shutdown), in the test process, on
 * a free port, with this config file and a data folder of its own; closed at the test's end. The config
 * file is not watched unless `watch` is set. The built-in engines run in the test process, as in `build()`
 * (test/helpers/build.ts), unless `runnerFactory` says otherwise.
 */
export async function serveInProcess(
  t: Test,
  config: Record<string, unknown>,
  options: ServeOptions & {
    watch?: boolean
    logger?: BuildOptions['logger']
    runnerFactory?: BuildOptions['runnerFactory']
  } = {},
) {
  const { startServer } = await import('../../server/server.ts')
  const { inlineBuiltInEngines } = await import('./build.ts')
  const { dir, dataDir, configFile, env } = serviceFiles(t, config, options)
  const port = options.port ?? (await freePort())
  const server = await startServer({
    flags: { config: configFile, dataDir, port },
    env,
    cwd: dir,
    watch: options.watch ?? false,
    logger: options.logger ?? false,
    runnerFactory: options.runnerFactory ?? inlineBuiltInEngines,
  })
  t.teardown(() => server.close())
  return { server, port, dataDir, configFile, env, url: `http://127.0.0.1:${port}` }
}
