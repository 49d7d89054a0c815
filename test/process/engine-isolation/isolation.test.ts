/** Engines that crash or hang cost one request, not the API: real engine hosts (isolation 'process') through HTTP. */
import path from 'node:path'
import t from 'tap'
import { build, FIXTURES } from '../../helpers/build.ts'
import { listen, rawRequest } from '../../helpers/http.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'

const ENGINES = path.join(FIXTURES, 'engines')
const JFK = path.join(audioFixturesDir, 'jfk.wav')
const transcribe = (port: number, prompt?: string) =>
  rawRequest({
    port,
    method: 'POST',
    path: '/v1/transcribe',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path: JFK, ...(prompt ? { prompt } : {}) }),
  })

t.test(
  'an engine that aborts its process: a clear 500, the API keeps serving, the engine restarts',
  async (t) => {
    const app = await build(t, {
      plugins: [path.join(ENGINES, 'abort-engine.ts')],
      speech: { engine: 'abort' },
    })
    const port = await listen(t, app)
    const first = await transcribe(port)
    t.equal(first.status, 500)
    t.equal(first.json.code, 'ENGINE_CRASHED')
    t.match(first.json.error, /^Speech engine crashed: /)
    t.notMatch(first.text, /at .*\.ts:\d+/, 'no stack trace in the body')
    t.equal((await rawRequest({ port, path: '/v1/health' })).status, 200, 'other endpoints keep answering')
    const second = await transcribe(port)
    t.equal(
      second.json.code,
      'ENGINE_CRASHED',
      'the engine was started again for the next request (and crashed again)',
    )
    const engines = await rawRequest({ port, path: '/v1/engines' })
    const abort = engines.json.items.find((e: { id: string }) => e.id === 'abort')
    t.equal(abort.status, 'failed', '/v1/engines shows the failure')
    t.match(abort.reason, /crashed/)
  },
)

t.test('an engine that hangs: ended by speech.timeoutMs with a 504, health answers meanwhile', async (t) => {
  const app = await build(t, {
    plugins: [path.join(ENGINES, 'hang-engine.ts')],
    speech: { engine: 'hang', timeoutMs: 1500 },
  })
  const port = await listen(t, app)
  const pending = transcribe(port, 'busy')
  const health = await rawRequest({ port, path: '/v1/health' })
  t.equal(health.status, 200, 'health answered while the engine hung')
  const hung = await pending
  t.equal(hung.status, 504)
  t.equal(hung.json.code, 'ENGINE_TIMEOUT')
  t.match(hung.json.error, /^Speech engine timed out: /)
})
