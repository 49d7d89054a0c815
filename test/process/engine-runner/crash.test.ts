import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import type { DictumError } from '../../../errors/catalogue.ts'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import { fixtureRunner, memoryLogger, pidOf, request } from '../../kernel/engine-runner/runner-helpers.ts'

t.test('an engine that aborts fails its request with ENGINE_CRASHED and is restarted', async (t) => {
  const runner = createEngineRunner(fixtureRunner('abort'))
  t.teardown(() => runner.close())
  await runner.load()
  const first = await runner.transcribe(request(10, 'alive'))

  const error = (await runner.transcribe(request(10)).catch((e) => e)) as DictumError
  t.equal(error.code, 'ENGINE_CRASHED')
  t.equal(error.statusCode, 500)
  t.match(error.message, /^Speech engine crashed: abort: .*SIGABRT/)
  t.equal(runner.lastError, error, 'the crash is kept as lastError')

  const after = await runner.transcribe(request(10, 'alive'))
  t.match(after.text, /^alive \d+$/)
  t.not(pidOf(after), pidOf(first), 'a new host answered')
  t.equal(runner.state, 'ready')
})

for (const [how, expected] of [
  ['segfault', /SIGSEGV/],
  ['exit', /exit code 255/],
  ['uncaught', /exit code 1\b/],
] as const) {
  t.test(`a host that dies by ${how} gives ENGINE_CRASHED`, async (t) => {
    const runner = createEngineRunner(fixtureRunner('abort'))
    t.teardown(() => runner.close())
    const error = (await runner.transcribe(request(1, how)).catch((e) => e)) as DictumError
    t.equal(error.code, 'ENGINE_CRASHED')
    t.match(error.message, expected)
    t.match((await runner.transcribe(request(1, 'alive'))).text, /^alive/)
  })
}

t.test('a crash while loading is ENGINE_LOAD_FAILED and state failed', async (t) => {
  const runner = createEngineRunner(
    fixtureRunner('abort', { context: { options: { crashOnLoad: true }, dataDir: '/x', modelsDir: '/x' } }),
  )
  t.teardown(() => runner.close())
  const error = (await runner.load().catch((e) => e)) as DictumError
  t.equal(error.code, 'ENGINE_LOAD_FAILED')
  t.equal(error.statusCode, 503)
  t.match(error.message, /while loading/)
  t.equal(runner.state, 'failed')
})

t.test(
  'a load failure is ENGINE_LOAD_FAILED with the engine message; the next load tries again',
  async (t) => {
    const dir = t.testdir({ 'broken-marker': '' })
    const marker = path.join(dir, 'broken-marker')
    const options = { delayMs: 0, loadDelayMs: 0, stderrLines: 0, failLoadWhileExists: marker }
    const runner = createEngineRunner(
      fixtureRunner('fake', { context: { options, dataDir: dir, modelsDir: dir } }),
    )
    t.teardown(() => runner.close())

    const [a, b] = await Promise.all([runner.load().catch((e) => e), runner.load().catch((e) => e)])
    t.equal(a, b, 'parallel callers share one failed load')
    t.equal(a.code, 'ENGINE_LOAD_FAILED')
    t.match(a.message, 'Speech engine failed to load: fake: Model not installed: fake model')
    t.same(a.extra, { fix: 'remove the marker file' }, 'the engine error extra fields are kept')
    t.equal(runner.state, 'failed')
    t.equal(runner.lastError, a)

    const viaTranscribe = (await runner.transcribe(request(5)).catch((e) => e)) as DictumError
    t.equal(viaTranscribe.code, 'ENGINE_LOAD_FAILED', 'transcribe retries the load, which fails again')

    fs.rmSync(marker)
    await runner.load()
    t.equal(runner.state, 'ready')
    t.equal(runner.lastError, null)
    t.equal((await runner.transcribe(request(5))).text, 'fake 5 samples')
  },
)

t.test("an engine's own errors: DictumErrors kept, others become ENGINE_FAILED", async (t) => {
  const runner = createEngineRunner(fixtureRunner('fake'))
  t.teardown(() => runner.close())
  const plain = (await runner.transcribe(request(5, 'throw')).catch((e) => e)) as DictumError
  t.equal(plain.code, 'ENGINE_FAILED')
  t.equal(plain.message, 'Speech engine failed: fake: transcribe: the fake engine was asked to fail.')
  const own = (await runner.transcribe(request(5, 'throw-dictum')).catch((e) => e)) as DictumError
  t.equal(own.code, 'MODEL_INVALID')
  t.equal(own.message, 'Model is missing files or corrupt: fake model is broken.')
  t.equal((await runner.transcribe(request(5))).text, 'fake 5 samples', 'the same host still serves')
})

t.test('engine logs and stderr reach the logger, stderr capped', async (t) => {
  const logger = memoryLogger()
  const options = { delayMs: 0, loadDelayMs: 0, stderrLines: 500 }
  const runner = createEngineRunner(
    fixtureRunner('fake', { logger, context: { options, dataDir: '/x', modelsDir: '/x' } }),
  )
  await runner.load()
  await runner.close()
  const loaded = logger.entries.find((e) => e.msg === 'fake model loaded')
  t.match(loaded, { level: 'info', obj: { engine: 'fake', pid: Number } }, 'the engine logger is forwarded')
  const chatter = logger.entries.filter((e) => (e.obj as { stream?: string }).stream === 'stderr')
  t.ok(chatter.length >= 10, 'stderr lines are logged')
  t.ok(chatter.length <= 51, `stderr is capped (${chatter.length} entries for 500 lines)`)
  t.match(chatter.at(-1)?.msg, /more lines of engine output not logged/)
})
