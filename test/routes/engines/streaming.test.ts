/** GET /v1/engines says which engines stream (live dictation's kernel side as the app wires it). */
import path from 'node:path'
import t from 'tap'
import { build, FIXTURES, injectJson } from '../../helpers/build.ts'

const STREAMING_ENGINE = path.join(FIXTURES, 'plugins/streaming-engine.ts')
const ECHO_ENGINE = path.join(FIXTURES, 'plugins/good-engine.ts')

t.test('GET /v1/engines says which engines stream', async (t) => {
  const app = await build(t, {
    plugins: [ECHO_ENGINE, STREAMING_ENGINE],
    speech: { engines: { 'fixture-streaming-inline': { streaming: false } } },
  })
  const res = await injectJson(app, 'GET', '/v1/engines')
  t.equal(res.status, 200)
  const streaming = (id: string) =>
    res.body.items.find((e: { id: string }) => e.id === id)?.capabilities.streaming
  t.equal(streaming('fixture-streaming'), true)
  t.equal(streaming('fixture-streaming-inline'), false, 'as the options say')
  t.equal(streaming('fixture-echo'), false, 'an engine that does not declare it')
})
