/**
 * Runs `node bin/dictum.js …` as a user would: a child process with its own temp config file and data
 * folder, environment cleaned of the user's dictum settings.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { freePort, untilHealthy } from '../helpers/serve.ts'

export { audioFixturesDir } from '../helpers/fixtures.ts'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const FIXTURE_ENGINE = path.join(repoRoot, 'test/fixtures/plugins/good-engine.ts')
const BIN = path.join(repoRoot, 'bin/dictum.js')

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv
  cwd?: string
  /** Written to stdin (stdin is closed either way). */
  input?: string
  /** Called with the child once it runs (e.g. to send it SIGINT). */
  started?: (child: ChildProcess, output: { stderr: () => string }) => void
}

/** A temp folder removed on teardown. */
export function tempDir(t: Test, prefix = 'dictum-cli-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
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

export interface CliSetup {
  dir: string
  dataDir: string
  configFile: string
  /** `--config FILE --data-dir DIR` */
  args: string[]
  env: NodeJS.ProcessEnv
  run(args: string[], options?: RunOptions): Promise<CliResult>
}

/** A user with this config (written as JSON) and an empty data folder. */
export function setup(t: Test, config: Record<string, unknown>): CliSetup {
  const dir = tempDir(t)
  const dataDir = path.join(dir, 'data')
  const configFile = path.join(dir, 'config.json')
  writeFileSync(configFile, JSON.stringify(config))
  const env = cleanEnv(dir)
  const args = ['--config', configFile, '--data-dir', dataDir]
  return {
    dir,
    dataDir,
    configFile,
    args,
    env,
    run: (more, options = {}) => runCli([...more, ...args], { env, cwd: dir, ...options }),
  }
}

/** The fixture engine (no native code): says "heard N samples" unless `text` is set. */
export function fixtureConfig(engineOptions: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    plugins: [FIXTURE_ENGINE],
    speech: { engine: 'fixture-echo', engines: { 'fixture-echo': engineOptions } },
  }
}

export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: options.env ?? cleanEnv(tmpdir()),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text
  })
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text
  })
  child.stdin.on('error', () => {})
  child.stdin.end(options.input ?? '')
  options.started?.(child, { stderr: () => stderr })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

/** Resolves once `predicate(stderr)` holds (polled), or rejects when the child exits first. */
export async function waitForStderr(
  child: ChildProcess,
  stderr: () => string,
  predicate: (text: string) => boolean,
): Promise<void> {
  while (!predicate(stderr())) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`exited before the expected output; stderr: ${stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * `dictum serve` in a child process with this config file, a data folder of its own and a free port, once
 * it answers `/v1/health`; its stdout and stderr are kept (`output()`), and it is killed at the test's end
 * if it still runs.
 */
export async function spawnServe(
  t: Test,
  config: Record<string, unknown>,
  options: {
    /** A data folder kept between services (a restart); default: one of its own. */ dataDir?: string
  } = {},
) {
  const dir = tempDir(t)
  const dataDir = options.dataDir ?? path.join(dir, 'data')
  const configFile = path.join(dir, 'config.json')
  writeFileSync(configFile, JSON.stringify(config))
  const port = await freePort()
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--config', configFile, '--data-dir', dataDir, '--port', String(port)],
    { env: cleanEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  const keep = (text: string) => {
    output += text
  }
  child.stdout.setEncoding('utf8').on('data', keep)
  child.stderr.setEncoding('utf8').on('data', keep)
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  await untilHealthy(child, port)
  return { child, port, dataDir, output: () => output }
}
