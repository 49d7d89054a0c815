import t from 'tap'
import type { EngineDefinition, EngineInstance } from '../../../kernel/contracts/engine.ts'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import fakeDefinition from '../../fixtures/engines/fake-engine.ts'
import { fixtureRunner, request } from './runner-helpers.ts'

// A concrete definition is not assignable to EngineDefinition<TSchema> (displayName's parameter).
const fake = fakeDefinition as unknown as EngineDefinition

/** An in-process engine whose calls the test settles by hand. */
function manualEngine() {
  const calls: { prompt?: string; signal?: AbortSignal; finish: () => void }[] = []
  let running = 0
  let maxRunning = 0
  let loads = 0
  let closes = 0
  let failLoads = 0
  const instance: EngineInstance = {
    async load() {
      loads++
      if (failLoads-- > 0) throw new Error('model file missing')
    },
    transcribe: (req, signal) =>
      new Promise((resolve) => {
        running++
        maxRunning = Math.max(maxRunning, running)
        calls.push({
          prompt: req.prompt,
          signal,
          finish: () => {
            running--
            resolve({ text: req.prompt ?? '', confidence: 1 })
          },
        })
      }),
    async close() {
      closes++
    },
  }
  const definition = { ...fake, id: 'manual', isolation: 'none', create: () => instance } as EngineDefinition
  return {
    definition,
    calls,
    stats: () => ({ maxRunning, loads, closes }),
    failNextLoads: (n: number) => {
      failLoads = n
    },
  }
}

const inline = (engine: ReturnType<typeof manualEngine>, concurrency = 1, requestTimeoutMs = 60_000) =>
  createEngineRunner({
    ...fixtureRunner('fake', { concurrency, requestTimeoutMs }),
    engineId: 'manual',
    isolation: 'none',
    definition: engine.definition,
  })

const tick = () => new Promise((resolve) => setImmediate(resolve))

t.test('isolation none: FIFO queue with at most `concurrency` calls at once', async (t) => {
  const engine = manualEngine()
  const runner = inline(engine, 2)
  const results = ['a', 'b', 'c', 'd'].map((p) => runner.transcribe(request(1, p)))
  await tick()
  t.same(
    engine.calls.map((c) => c.prompt),
    ['a', 'b'],
  )
  engine.calls[1]?.finish()
  await tick()
  t.same(
    engine.calls.map((c) => c.prompt),
    ['a', 'b', 'c'],
  )
  for (let i = 0; i < 4; i++) {
    engine.calls[i]?.finish()
    await tick()
  }
  t.same(
    (await Promise.all(results)).map((r) => r.text),
    ['a', 'b', 'c', 'd'],
  )
  t.equal(engine.stats().maxRunning, 2)
  t.equal(engine.stats().loads, 1, 'one load shared by all')
  await runner.close()
  await runner.close()
  t.equal(engine.stats().closes, 1)
  t.equal(runner.state, 'closed')
})

t.test('isolation none: a call over the timeout rejects with ENGINE_TIMEOUT and is aborted', async (t) => {
  const engine = manualEngine()
  const runner = inline(engine, 1, 50)
  t.teardown(() => runner.close())
  await t.rejects(runner.transcribe(request(1, 'slow')), { code: 'ENGINE_TIMEOUT' })
  t.ok(engine.calls[0]?.signal?.aborted, "the engine's signal is aborted")
  const next = runner.transcribe(request(1, 'next'))
  await tick()
  engine.calls[1]?.finish()
  t.equal((await next).text, 'next', 'the runner is still usable')
})

t.test('isolation none: load failure is ENGINE_LOAD_FAILED, retried next time', async (t) => {
  const engine = manualEngine()
  engine.failNextLoads(1)
  const runner = inline(engine)
  t.teardown(() => runner.close())
  const error = await runner.load().catch((e) => e)
  t.equal(error.code, 'ENGINE_LOAD_FAILED')
  t.equal(error.message, 'Speech engine failed to load: manual: model file missing.')
  t.equal(runner.state, 'failed')
  t.equal(runner.lastError, error)
  await runner.load()
  t.equal(runner.state, 'ready')
  t.equal(engine.stats().closes, 1, 'the failed instance was closed')
})

t.test('isolation none: engine errors are translated; an aborted signal is refused', async (t) => {
  const runner = createEngineRunner({ ...fixtureRunner('fake'), isolation: 'none', definition: fake })
  t.teardown(() => runner.close())
  t.equal((await runner.transcribe(request(3))).text, 'fake 3 samples')
  await t.rejects(runner.transcribe(request(1, 'throw')), {
    code: 'ENGINE_FAILED',
    message: 'Speech engine failed: fake: transcribe: the fake engine was asked to fail.',
  })
  await t.rejects(runner.transcribe(request(1, 'throw-dictum')), { code: 'MODEL_INVALID' })
  await t.rejects(runner.transcribe(request(1), AbortSignal.abort()), { name: 'AbortError' })
})

t.test('isolation none: aborting a running call aborts the engine call', async (t) => {
  const options = { delayMs: 60_000, loadDelayMs: 0, stderrLines: 0 }
  const runner = createEngineRunner({
    ...fixtureRunner('fake', { context: { options, dataDir: '/x', modelsDir: '/x' } }),
    isolation: 'none',
    definition: fake,
  })
  t.teardown(() => runner.close())
  await runner.load()
  const controller = new AbortController()
  const running = runner.transcribe(request(1), controller.signal)
  await tick()
  controller.abort()
  await t.rejects(running, { name: 'AbortError' })
})

t.test('isolation none needs the definition', async (t) => {
  t.throws(() => createEngineRunner({ ...fixtureRunner('fake'), isolation: 'none' }), /needs the definition/)
})
