/**
 * Issue 16 item 19: a request sent to a host that had just died (before the API process noticed) never
 * reached the engine, so it is run once more on a fresh host instead of failing with that crash's 500. A
 * request the engine did start is never run twice.
 */
import t from 'tap'
import type { DictumError } from '../../../errors/catalogue.ts'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import { ProcessEngineRunner } from '../../../kernel/engine-runner/process-runner.ts'
import { fixtureRunner, memoryLogger, pidOf, request } from '../../kernel/engine-runner/runner-helpers.ts'

const hostsStarted = (logger: ReturnType<typeof memoryLogger>) =>
  logger.entries.filter((entry) => entry.msg === 'engine host started').length

t.test('a request sent right after its idle host died runs on a fresh host', async (t) => {
  const logger = memoryLogger()
  const runner = new ProcessEngineRunner(fixtureRunner('fake', { logger }))
  t.teardown(() => runner.close())
  for (let round = 0; round < 3; round++) {
    await runner.load()
    const [pid] = runner.hostPids as [number]
    // Killed and asked in the same turn of the event loop: the runner cannot have seen the exit yet.
    process.kill(pid, 'SIGKILL')
    const result = await runner.transcribe(request(5))
    t.equal(result.text, 'fake 5 samples', `round ${round}: the request succeeded`)
    t.not(pidOf(result), pid, 'on a new host')
  }
  const retries = logger.entries.filter((entry) => /before it started the request/.test(entry.msg ?? ''))
  t.equal(retries.length, 3, 'each retry is logged')
})

t.test('a request the engine started and crashed on is not run again', async (t) => {
  const logger = memoryLogger()
  const runner = createEngineRunner(fixtureRunner('abort', { logger }))
  t.teardown(() => runner.close())
  await runner.load()
  t.equal(hostsStarted(logger), 1)
  const error = (await runner.transcribe(request(1, 'abort')).catch((e) => e)) as DictumError
  t.equal(error.code, 'ENGINE_CRASHED')
  t.match(error.message, /SIGABRT/)
  t.equal(hostsStarted(logger), 1, 'no second host was started for the crashing request')
  t.match((await runner.transcribe(request(1, 'alive'))).text, /^alive/)
})
