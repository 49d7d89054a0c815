/**
 * /v1/realtime in a real `dictum serve`: SIGTERM with a session open closes it with 1001 and the process
 * exits (an upgraded socket is not an HTTP request: the listener's drain would otherwise wait for it), and
 * the token a browser sends as a subprotocol reaches no log line, at debug level.
 */
import { once } from 'node:events'
import t, { type Test } from 'tap'
import { FIXTURE_ENGINE, spawnServe } from '../cli/run-cli.ts'
import { openRealtime } from '../routes/realtime/realtime-client.ts'

/**
 * Tells "exits" from "hangs" (the drain used to wait for the upgraded socket for good), not a latency: the
 * shutdown grace is a few seconds.
 */
const EXIT_LIMIT_MS = 60_000
const TOKEN = 'lifecycle-token-9f8e7d6c5b4a'

function serve(t: Test, config: Record<string, unknown>) {
  return spawnServe(t, { plugins: [FIXTURE_ENGINE], speech: { engine: 'fixture-echo' }, ...config })
}

t.test('SIGTERM with a realtime session open: close code 1001, the process exits', async (t) => {
  const { child, port } = await serve(t, {})
  const client = await openRealtime(t, port)
  await client.next('session.created')
  const started = performance.now()
  child.kill('SIGTERM')
  const closed = await client.closed
  t.equal(closed.code, 1001)
  t.equal(closed.reason, 'server shutting down')
  const [code] = await once(child, 'exit')
  t.equal(code, 0, 'a clean exit')
  t.ok(performance.now() - started < EXIT_LIMIT_MS, 'it exited, it did not hang')
})

t.test('the token never reaches the log (debug level, malformed frames and refusals included)', async (t) => {
  const { port, child, output } = await serve(t, { api: { token: TOKEN }, log: { level: 'debug' } })
  const refused = await openRealtime(t, port, {
    protocols: ['realtime', 'openai-insecure-api-key.wrong'],
  }).catch((err: Error) => err.message)
  t.match(refused, /401/)
  const client = await openRealtime(t, port, { protocols: ['realtime', `openai-insecure-api-key.${TOKEN}`] })
  await client.next('session.created')
  client.sendRaw(JSON.stringify({ type: TOKEN }))
  client.sendRaw(`{"broken": "${TOKEN}`)
  await client.waitFor(() => client.ofType('error').length === 2)
  client.socket.close()
  await client.closed
  child.kill('SIGTERM')
  await once(child, 'exit')
  t.match(output(), /realtime|request/, 'the log has lines')
  t.notMatch(output(), TOKEN)
})
