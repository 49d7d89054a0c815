/**
 * Live dictation's kernel side as the app wires it, with real engine hosts: a live session holds its acquired
 * engine for its whole life, so a config edit of the engine's options drains it like a request: the open
 * stream finishes on the old engine host, the next acquisition gets the new options, and the old hosts stop
 * once the session releases it. Which engines stream: test/routes/engines/streaming.test.ts.
 */
import path from 'node:path'
import t from 'tap'
import type { ProcessEngineRunner } from '../../../kernel/engine-runner/process-runner.ts'
import { build, FIXTURES } from '../../helpers/build.ts'
import { isAlive, pidOf, waitForExit } from '../../kernel/engine-runner/runner-helpers.ts'
import { audio } from '../../kernel/engine-runner/stream-helpers.ts'

const STREAMING_ENGINE = path.join(FIXTURES, 'plugins/streaming-engine.ts')

t.test('a session holding its engine keeps it through a config edit, then lets it go', async (t) => {
  const app = await build(t, {
    plugins: [STREAMING_ENGINE],
    speech: { engine: 'fixture-streaming', engines: { 'fixture-streaming': { msPerWord: 100 } } },
  })
  const { engines, configStore } = app.dictum
  const session = await engines.acquire()
  t.equal(session.capabilities.streaming, true)
  const stream = await session.runner.openStream({ customWords: [] })
  stream.write(audio(200))
  const [oldHost] = (session.runner as ProcessEngineRunner).streamHostPids

  const current = configStore.current
  const errors = await configStore.update({
    ...current,
    speech: { ...current.speech, engines: { 'fixture-streaming': { msPerWord: 50 } } },
  })
  t.same(errors, [])
  stream.write(audio(200))
  const result = await stream.finish()
  t.equal(result.text, 'alpha bravo charlie delta', 'finished on the old options: 100 ms a word')
  t.equal(pidOf(result), oldHost)

  const next = await engines.acquire()
  t.not(next.runner, session.runner, 'a new acquisition gets the new runner')
  const fresh = await next.runner.openStream({ customWords: [] })
  fresh.write(audio(200))
  t.equal((await fresh.finish()).text, 'alpha bravo charlie delta', 'the new options: 50 ms a word')
  next.release()

  t.ok(isAlive(oldHost as number), 'the old stream host lives while the session holds the engine')
  session.release()
  await waitForExit(oldHost as number)
  t.equal(session.runner.state, 'closed', 'released by its last user, the old runner closed')
})
