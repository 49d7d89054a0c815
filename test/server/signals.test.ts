/**
 * `dictum serve` as a supervisor runs it: SIGTERM and SIGINT end it within the graceful-close limit whatever
 * state its output is in. The case that hung: the reader of its log went away (npx stopped, a `| tee`
 * ended), so every log line fails with EPIPE, and the shutdown never finished.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, openSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { logDestination } from '../../lib/log-destination.ts'
import { cleanEnv, tempDir } from '../cli/run-cli.ts'
import { repoRoot } from '../helpers/fixtures.ts'
import { freePort, untilHealthy } from '../helpers/serve.ts'

/** A bound well above the graceful-close limit: the test fails if the process has not exited by then. */
const EXIT_LIMIT_MS = 20_000

async function startServe(t: Test, stdio: 'pipe' | 'ignore'): Promise<{ child: ChildProcess; port: number }> {
  const dir = tempDir(t)
  const port = await freePort()
  const child = spawn(
    process.execPath,
    [
      path.join(repoRoot, 'bin/dictum.js'),
      'serve',
      '--port',
      String(port),
      '--data-dir',
      path.join(dir, 'data'),
    ],
    { env: cleanEnv(dir), stdio: ['ignore', stdio, stdio] },
  )
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  await untilHealthy(child, port)
  return { child, port }
}

async function exitsWithin(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true
  const timer = new Promise<false>((resolve) => setTimeout(() => resolve(false), ms).unref())
  return Promise.race([once(child, 'exit').then(() => true), timer])
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  t.test(`${signal} ends dictum serve whose stdout and stderr readers are gone`, async (t) => {
    const { child } = await startServe(t, 'pipe')
    // The reader goes away: further writes fail with EPIPE.
    child.stdout?.destroy()
    child.stderr?.destroy()
    child.kill(signal)
    t.ok(await exitsWithin(child, EXIT_LIMIT_MS), `exited within ${EXIT_LIMIT_MS / 1000} s`)
    t.equal(child.exitCode, 0, 'a clean exit')
  })
}

t.test('SIGTERM ends dictum serve with its output going nowhere', async (t) => {
  const { child } = await startServe(t, 'ignore')
  child.kill('SIGTERM')
  t.ok(await exitsWithin(child, EXIT_LIMIT_MS), `exited within ${EXIT_LIMIT_MS / 1000} s`)
  t.equal(child.exitCode, 0)
})

t.test('the log destination writes whole lines, and turns itself off when the fd fails', async (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, 'log.txt')
  const fd = openSync(file, 'w')
  const destination = logDestination(fd)
  destination.write('{"msg":"one"}\n')
  destination.write('{"msg":"two"}\n')
  closeSync(fd)
  t.equal(readFileSync(file, 'utf8'), '{"msg":"one"}\n{"msg":"two"}\n')
  const readOnly = openSync(file, 'r')
  const broken = logDestination(readOnly)
  t.doesNotThrow(() => broken.write('lost\n'), 'a failing write does not throw into the service')
  t.notOk(broken.open, 'the destination is off after a hard failure')
  t.doesNotThrow(() => broken.write('also lost\n'))
  closeSync(readOnly)
  t.equal(readFileSync(file, 'utf8'), '{"msg":"one"}\n{"msg":"two"}\n', 'nothing else was written')
})
