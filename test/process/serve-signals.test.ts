/**
 * `dictum serve` as a supervisor runs it: SIGTERM and SIGINT end it within the graceful-close limit whatever
 * state its output is in. The case that hung: the reader of its log went away (npx stopped, a `| tee`
 * ended), so every log line fails with EPIPE, and the shutdown never finished.
 */
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, openSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { logDestination } from '../../lib/log-destination.ts'
import { tempDir } from '../cli/run-cli.ts'
import { spawnServe } from '../helpers/serve.ts'

/**
 * Tells "exits" from "hangs" (the old code never exited), not a latency: far above the graceful-close
 * limit, and above what a loaded machine needs.
 */
const EXIT_LIMIT_MS = 60_000

function startServe(t: Test, stdio: 'pipe' | 'ignore') {
  return spawnServe(t, {}, { stdio })
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
