import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import { fixtureRunner, request } from '../../kernel/engine-runner/runner-helpers.ts'

function fakeWithTrace(dir: string, concurrency: number, delayMs: number, holdWhileExists?: string) {
  const options = { delayMs, loadDelayMs: 0, stderrLines: 0, traceDir: dir, holdWhileExists }
  return fixtureRunner('fake', { concurrency, context: { options, dataDir: dir, modelsDir: dir } })
}

/** The requests the fake engine started, in order (it writes a run marker, then appends to starts.log). */
const startOrder = (dir: string) => {
  const log = path.join(dir, 'starts.log')
  return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []
}
const running = (dir: string) => fs.readdirSync(dir).filter((name) => name.startsWith('run-')).length
const loads = (dir: string) => fs.readdirSync(dir).filter((name) => name.startsWith('load-'))

t.test('with concurrency 2, five parallel requests never run more than two at once', async (t) => {
  const dir = t.testdir({ trace: {}, hold: '' })
  const trace = path.join(dir, 'trace')
  const runner = createEngineRunner(fakeWithTrace(trace, 2, 20, path.join(dir, 'hold')))
  t.teardown(() => runner.close())
  await runner.load()
  const pending = Promise.all([1, 2, 3, 4, 5].map((n) => runner.transcribe(request(n, `r${n}`))))
  // Both markers and both starts: a loaded machine once showed two markers while the second start was
  // still to be appended.
  while (running(trace) < 2 || startOrder(trace).length < 2) await sleep(10)
  t.same(startOrder(trace), ['r1', 'r2'], 'the first two run, the rest wait')
  fs.rmSync(path.join(dir, 'hold'))
  const results = await pending
  t.same(
    results.map((r) => r.text),
    [1, 2, 3, 4, 5].map((n) => `fake ${n} samples`),
  )
  const overlaps = results.map((r) => r.debug?.concurrent as number)
  t.ok(Math.max(...overlaps) <= 2, `at most two ran at once (${overlaps})`)
  t.ok(overlaps.includes(2), 'two did run at once')
  t.equal(new Set(results.map((r) => r.debug?.pid)).size, 2, 'two hosts served')
  t.equal(loads(trace).length, 2, 'each host loaded its model once')
})

t.test('queued requests start in arrival order', async (t) => {
  const dir = t.testdir()
  const runner = createEngineRunner(fakeWithTrace(dir, 1, 50))
  t.teardown(() => runner.close())
  const tags = ['a', 'b', 'c', 'd', 'e', 'f']
  await Promise.all(tags.map((tag) => runner.transcribe(request(1, tag))))
  t.same(startOrder(dir), tags)
})

t.test('parallel first load() calls start one host', async (t) => {
  const dir = t.testdir()
  const runner = createEngineRunner(fakeWithTrace(dir, 3, 0))
  t.teardown(() => runner.close())
  t.equal(runner.state, 'idle')
  const loading = Promise.all([runner.load(), runner.load(), runner.load()])
  t.equal(runner.state, 'loading')
  await loading
  await runner.load()
  t.equal(runner.state, 'ready')
  t.same(loads(dir).length, 1)
})

t.test('aborting a queued request removes it from the queue; the others still run', async (t) => {
  const dir = t.testdir()
  const runner = createEngineRunner(fakeWithTrace(dir, 1, 200))
  t.teardown(() => runner.close())
  await runner.load()
  const controller = new AbortController()
  const first = runner.transcribe(request(1, 'first'))
  const queued = runner.transcribe(request(2, 'queued'), controller.signal)
  const last = runner.transcribe(request(3, 'last'))
  controller.abort()
  await t.rejects(queued, { name: 'AbortError' })
  t.equal((await first).text, 'fake 1 samples')
  t.equal((await last).text, 'fake 3 samples')
  t.same(startOrder(dir), ['first', 'last'], 'the aborted request never reached the engine')

  const already = AbortSignal.abort()
  await t.rejects(runner.transcribe(request(1), already), { name: 'AbortError' })
})

t.test('aborting a running request tells the host; the engine stops and the host stays', async (t) => {
  const dir = t.testdir()
  const runner = createEngineRunner(fakeWithTrace(dir, 1, 60_000))
  t.teardown(() => runner.close())
  await runner.load()
  const controller = new AbortController()
  const running = runner.transcribe(request(1, 'long'), controller.signal)
  while (!fs.existsSync(path.join(dir, 'starts.log'))) await sleep(10)
  controller.abort()
  await t.rejects(running, { name: 'AbortError' })
  t.equal(runner.state, 'ready')
  t.equal(loads(dir).length, 1, 'the same host is still loaded')
})
