/**
 * Issue 16 item 20 with a real engine host: a result over the cap is refused in the host before it is sent,
 * and again in the API process when a plugin sends on its own; one just under it passes. The cap itself and
 * in-process engines: test/kernel/engine-runner/result-limit.test.ts.
 */
import t from 'tap'
import type { DictumError } from '../../../errors/catalogue.ts'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import { fixtureRunner, request } from '../../kernel/engine-runner/runner-helpers.ts'

const ONE_SECOND = 16_000

const tooLarge =
  'Speech engine failed: greedy: the result is larger than the limit of 65536 characters for 1.0 s of audio.'

t.test(
  'process isolation: refused in the host and, when a plugin sends on its own, in the API process',
  async (t) => {
    const runner = createEngineRunner(fixtureRunner('greedy'))
    t.teardown(() => runner.close())
    for (const prompt of ['huge-text', 'huge-direct']) {
      const error = (await runner.transcribe(request(ONE_SECOND, prompt)).catch((e) => e)) as DictumError
      t.equal(error.code, 'ENGINE_FAILED', prompt)
      t.equal(error.message, tooLarge)
    }
    t.match(
      (await runner.transcribe(request(ONE_SECOND, 'alive'))).text,
      /^alive \d+$/,
      'the engine still serves',
    )
  },
)

t.test('a result just under the cap passes', async (t) => {
  const options = { hugeChars: 60_000, leakOnLoad: false }
  const runner = createEngineRunner(
    fixtureRunner('greedy', { context: { options, dataDir: '/x', modelsDir: '/x' } }),
  )
  t.teardown(() => runner.close())
  t.equal((await runner.transcribe(request(ONE_SECOND, 'huge-text'))).text.length, 60_000)
})
