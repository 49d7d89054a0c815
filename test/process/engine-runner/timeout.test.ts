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

for (const hang of ['busy', 'pending'] as const) {
  t.test(
    `a ${hang} engine times out with ENGINE_TIMEOUT, its host is killed, the runner stays usable`,
    async (t) => {
      const runner = createEngineRunner(fixtureRunner('hang', { requestTimeoutMs: 300 }))
      t.teardown(() => runner.close())
      const before = await runner.transcribe(request(1, 'alive'))

      const error = (await runner.transcribe(request(1, hang)).catch((e) => e)) as DictumError
      t.equal(error.code, 'ENGINE_TIMEOUT')
      t.equal(error.statusCode, 504)
      t.equal(error.message, 'Speech engine timed out: hang: no result after 300 ms; the engine was stopped.')
      t.equal(runner.lastError, error)
      await waitForExit(pidOf(before))
      t.notOk(isAlive(pidOf(before)), 'the hung host is gone')

      const after = await runner.transcribe(request(1, 'alive'))
      t.not(pidOf(after), pidOf(before), 'a new host answered')
    },
  )
}

t.test('a load that never finishes fails with ENGINE_LOAD_FAILED after loadTimeoutMs', async (t) => {
  const runner = createEngineRunner(
    fixtureRunner('hang', {
      loadTimeoutMs: 1500,
      context: { options: { hangOnLoad: true }, dataDir: '/x', modelsDir: '/x' },
    }),
  )
  t.teardown(() => runner.close())
  const error = (await runner.load().catch((e) => e)) as DictumError
  t.equal(error.code, 'ENGINE_LOAD_FAILED')
  t.equal(error.message, 'Speech engine failed to load: hang: loading took longer than 1500 ms.')
  t.equal(runner.state, 'failed')
})
