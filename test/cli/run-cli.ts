/**
 * Runs dictum's command line as a user would, with its own temp config file and data folder and an
 * environment cleaned of the user's dictum settings: `runCli` calls the CLI's `main()` in the test process
 * (what `bin/dictum.js` calls, with the arguments, output streams, stdin, environment and working folder
 * given, the exit code returned); `runCliProcess` runs `node bin/dictum.js …` as a child, for tests whose
 * subject is the process (signals, the binary).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable, Writable } from 'node:stream'
import type { Test } from 'tap'
import { main } from '../../cli/index.ts'
import type { RunnerFactory } from '../../kernel/registry.ts'
import { inlineBuiltInEngines, tempDir as tempDirOf } from '../helpers/build.ts'
import { repoRoot } from '../helpers/fixtures.ts'
import { cleanEnv } from '../helpers/serve.ts'

export { audioFixturesDir, repoRoot } from '../helpers/fixtures.ts'
export { cleanEnv, spawnServe } from '../helpers/serve.ts'

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
  /** How engines run in `runCli` (default: the built-in ones in this process); a child runs its own way. */
  runnerFactory?: RunnerFactory
}

export interface ProcessRunOptions extends RunOptions {
  /** Called with the child once it runs (e.g. to send it SIGINT). */
  started?: (child: ChildProcess, output: { stderr: () => string }) => void
}

/** A temp folder removed on teardown. */
export function tempDir(t: Test, prefix = 'dictum-cli-'): string {
  return tempDirOf(t, prefix)
}

export interface CliSetup {
  dir: string
  dataDir: string
  configFile: string
  /** `--config FILE --data-dir DIR` */
  args: string[]
  env: NodeJS.ProcessEnv
  /** The command in the test process (`runCli`). */
  run(args: string[], options?: RunOptions): Promise<CliResult>
  /** The command as a child process (`runCliProcess`). */
  runProcess(args: string[], options?: ProcessRunOptions): Promise<CliResult>
}

/**
 * A user with this config (written as JSON) and an empty data folder. One engine process at a time
 * (`speech.concurrency: 1`) unless the config says otherwise, as in the other tests (test/helpers/build.ts).
 */
export function setup(t: Test, config: Record<string, unknown>): CliSetup {
  const dir = tempDir(t)
  const dataDir = path.join(dir, 'data')
  const configFile = path.join(dir, 'config.json')
  const speech = { concurrency: 1, ...(config.speech as object | undefined) }
  writeFileSync(configFile, JSON.stringify({ ...config, speech }))
  const env = cleanEnv(dir)
  const args = ['--config', configFile, '--data-dir', dataDir]
  return {
    dir,
    dataDir,
    configFile,
    args,
    env,
    run: (more, options = {}) => runCli([...more, ...args], { env, cwd: dir, ...options }),
    runProcess: (more, options = {}) => runCliProcess([...more, ...args], { env, cwd: dir, ...options }),
  }
}

/** The fixture engine (no native code): says "heard N samples" unless `text` is set. */
export function fixtureConfig(engineOptions: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    plugins: [FIXTURE_ENGINE],
    speech: { engine: 'fixture-echo', engines: { 'fixture-echo': engineOptions } },
  }
}

/** Output written to a string, as a pipe would carry it (not a terminal). */
class TextSink extends Writable {
  text = ''
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString()
    done()
  }
}

/**
 * `dictum ARGS` through the CLI's `main()` in this process: stdout and stderr are pipes (not terminals),
 * stdin holds `input` and then ends. The built-in engines run in this process too (`inlineBuiltInEngines`,
 * as in test/helpers/build.ts) unless `runnerFactory` says otherwise. A command that would keep running
 * (`serve`, `worker`) is refused: those run through `serveInProcess` or a child.
 */
export async function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  const stdout = new TextSink()
  const stderr = new TextSink()
  const code = await main(args, {
    stdout,
    stderr,
    isTTY: false,
    stderrIsTTY: false,
    stdin: Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]),
    env: options.env ?? cleanEnv(tmpdir()),
    cwd: options.cwd ?? repoRoot,
    runnerFactory: options.runnerFactory ?? inlineBuiltInEngines,
  })
  if (code < 0) throw new Error(`dictum ${args.join(' ')} keeps running: run it as a service`)
  // Writes queued before main() returned are delivered before the result is read.
  await new Promise((resolve) => setImmediate(resolve))
  return { code, signal: null, stdout: stdout.text, stderr: stderr.text }
}

/** `node bin/dictum.js ARGS` as a child process. */
export function runCliProcess(args: string[], options: ProcessRunOptions = {}): Promise<CliResult> {
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
