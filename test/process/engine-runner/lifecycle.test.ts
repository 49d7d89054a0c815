import { spawn } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import {
  fixtureRunner,
  isAlive,
  pidOf,
  request,
  waitForExit,
} from '../../kernel/engine-runner/runner-helpers.ts'

t.test('close() stops every host, is safe twice, and later calls fail cleanly', async (t) => {
  const dir = t.testdir()
  const options = { delayMs: 0, loadDelayMs: 0, stderrLines: 0, holdWhileExists: path.join(dir, 'none') }
  const runner = createEngineRunner(
    fixtureRunner('fake', { concurrency: 2, context: { options, dataDir: dir, modelsDir: dir } }),
  )
  const results = await Promise.all([runner.transcribe(request(1)), runner.transcribe(request(2))])
  const pids = results.map(pidOf)
  t.equal(new Set(pids).size, 2, 'two hosts were running')
  t.ok(pids.every(isAlive))

  await Promise.all([runner.close(), runner.close()])
  await runner.close()
  t.equal(runner.state, 'closed')
  t.notOk(pids.some(isAlive), 'every host process is gone once close() resolves')
  await t.rejects(runner.transcribe(request(1)), { code: 'ENGINE_UNAVAILABLE' })
  await t.rejects(runner.load(), { code: 'ENGINE_UNAVAILABLE' })
})

t.test('close() rejects queued and running requests and kills a busy host', async (t) => {
  const dir = t.testdir()
  const runner = createEngineRunner(
    fixtureRunner('hang', { context: { options: { hangOnLoad: false }, dataDir: dir, modelsDir: dir } }),
  )
  const pid = pidOf(await runner.transcribe(request(1, 'alive')))
  const running = runner.transcribe(request(1, 'busy')).catch((e) => e)
  const queued = runner.transcribe(request(1, 'alive')).catch((e) => e)
  while (!fs.existsSync(path.join(dir, `busy-${pid}`))) await sleep(10)
  await runner.close()
  t.match(await running, { code: 'ENGINE_UNAVAILABLE' }, 'the running request is rejected')
  t.match(await queued, { code: 'ENGINE_UNAVAILABLE' }, 'the queued request is rejected')
  t.notOk(isAlive(pid), 'the busy host is gone')
})

t.test('a host dies with its parent, even in a busy loop', async (t) => {
  const dir = t.testdir()
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'orphan-parent.ts')
  const parent = spawn(process.execPath, ['--import', 'tsx', script, dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  t.teardown(() => parent.kill('SIGKILL'))
  const [line] = (await once(parent.stdout, 'data')) as [Buffer]
  const hostPid = Number(line.toString().trim())
  t.ok(isAlive(hostPid), 'the busy host runs')
  parent.kill('SIGKILL')
  await once(parent, 'exit')
  await waitForExit(hostPid)
  t.notOk(isAlive(hostPid), 'the host is gone')
})

t.test('the API process event loop keeps running while a host is busy', async (t) => {
  const runner = createEngineRunner(fixtureRunner('hang', { requestTimeoutMs: 1000 }))
  t.teardown(() => runner.close())
  await runner.load()
  let ticks = 0
  const interval = setInterval(() => ticks++, 10)
  const outcome = await runner.transcribe(request(1, 'busy')).catch((e) => e)
  clearInterval(interval)
  t.equal(outcome.code, 'ENGINE_TIMEOUT')
  t.ok(ticks >= 10, `timers kept firing while the engine spun (${ticks} ticks)`)
})
