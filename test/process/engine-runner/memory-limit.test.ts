/**
 * Issue 16 item 12: an engine host has a memory limit (`speech.memoryLimitMb`). Each guard is shown on its
 * own with a real leaking engine: V8's heap limit (resident-memory sampling off), the resident-memory watch
 * (buffers, which V8 does not count), and a load over the limit.
 */
import t from 'tap'
import type { DictumError } from '../../../errors/catalogue.ts'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import {
  fixtureRunner,
  isAlive,
  pidOf,
  request,
  waitForExit,
} from '../../kernel/engine-runner/runner-helpers.ts'

const LIMIT_MB = 200
const limitMessage =
  /^Speech engine exceeded its memory limit: greedy: the engine process used more than its memory limit of 200 MB \(speech\.memoryLimitMb\); the engine was stopped\.$/

t.test("the limit caps the host's V8 heap", async (t) => {
  const runner = createEngineRunner(fixtureRunner('greedy', { memoryLimitMb: LIMIT_MB }))
  t.teardown(() => runner.close())
  const heapLimitMb = (await runner.transcribe(request(1, 'heap-limit'))).debug?.heapLimitMb as number
  t.ok(heapLimitMb >= LIMIT_MB && heapLimitMb < LIMIT_MB + 100, `V8 heap limit ${heapLimitMb} MB`)
})

for (const [what, prompt, overrides] of [
  ["V8's heap limit alone", 'leak-heap', { memorySampleMs: 0 }],
  ['the resident-memory watch (buffers)', 'leak-buffer', {}],
] as const) {
  t.test(`a leaking engine is stopped by ${what} with ENGINE_MEMORY_LIMIT`, async (t) => {
    const runner = createEngineRunner(
      fixtureRunner('greedy', { memoryLimitMb: LIMIT_MB, requestTimeoutMs: 30_000, ...overrides }),
    )
    t.teardown(() => runner.close())
    const before = await runner.transcribe(request(1, 'alive'))
    const error = (await runner.transcribe(request(1, prompt)).catch((e) => e)) as DictumError
    t.equal(error.code, 'ENGINE_MEMORY_LIMIT', error.message)
    t.equal(error.statusCode, 500)
    t.match(error.message, limitMessage)
    t.equal(runner.lastError, error, 'kept as lastError')
    await waitForExit(pidOf(before))
    t.notOk(isAlive(pidOf(before)), 'the leaking host is gone')
    const after = await runner.transcribe(request(1, 'alive'))
    t.not(pidOf(after), pidOf(before), 'a fresh host serves the next request')
  })
}

t.test('a load over the limit fails the load, naming the limit', async (t) => {
  const runner = createEngineRunner(
    fixtureRunner('greedy', {
      memoryLimitMb: LIMIT_MB,
      context: { options: { hugeChars: 1, leakOnLoad: true }, dataDir: '/x', modelsDir: '/x' },
    }),
  )
  t.teardown(() => runner.close())
  const error = (await runner.load().catch((e) => e)) as DictumError
  t.equal(error.code, 'ENGINE_LOAD_FAILED')
  t.equal(
    error.message,
    'Speech engine failed to load: greedy: the engine process used more than its memory limit of 200 MB (speech.memoryLimitMb) while loading.',
  )
  t.equal(runner.state, 'failed')
})
