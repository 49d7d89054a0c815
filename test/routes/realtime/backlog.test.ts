/**
 * /v1/realtime when the engine falls behind (the fixture streaming engine, its finish held back): the client
 * is warned with an `error` event at half of realtime.maxBacklogSeconds, then gets an `error` and close code
 * 1008; when dictum stops, each committed item gets its `failed` event before close code 1001.
 */
import t from 'tap'
import { build, FIXTURES } from '../../helpers/build.ts'
import { listen } from '../../helpers/http.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'
import { openRealtime, pcmOf, type RealtimeTestClient } from './realtime-client.ts'

const ENGINE = 'fixture-streaming-inline'
const CLIP = `${audioFixturesDir}/cards-001.wav` // 1.1 s

async function slowSession(t: Parameters<typeof build>[0], maxBacklogSeconds: number) {
  const app = await build(t, {
    plugins: [`${FIXTURES}/plugins/streaming-engine.ts`],
    speech: { engine: ENGINE, engines: { [ENGINE]: { finishDelayMs: 20_000 } } },
    realtime: { maxBacklogSeconds },
  })
  const port = await listen(t, app)
  const client = await openRealtime(t, port)
  await client.next('session.created')
  client.send({
    type: 'session.update',
    session: { type: 'transcription', audio: { input: { turn_detection: null } } },
  })
  await client.next('session.updated')
  return { app, client }
}

async function commitClip(client: RealtimeTestClient): Promise<string> {
  const from = client.events.length
  client.appendPcm(pcmOf(CLIP))
  client.send({ type: 'input_audio_buffer.commit' })
  return (await client.next('input_audio_buffer.committed', from)).item_id
}

t.test('a backlog: a warning, then an error and close code 1008', async (t) => {
  const { client } = await slowSession(t, 3)
  const items = [await commitClip(client), await commitClip(client)]
  items.push(await commitClip(client))
  const warning = await client.next('error')
  t.equal(warning.error.code, 'session_backlog', 'warned, the session goes on')
  items.push(await commitClip(client))
  const closed = await client.closed
  t.equal(closed.code, 1008)
  const errors = client.ofType('error')
  t.equal(errors.length, 2)
  t.match(errors[1]?.error.message, /more than realtime\.maxBacklogSeconds \(3\); the session is closed/)
  t.same(
    client.ofType('conversation.item.input_audio_transcription.failed').map((e) => e.item_id),
    items,
    'each committed item failed before the end',
  )
})

t.test('dictum stopping: each committed item fails before close code 1001', async (t) => {
  const { app, client } = await slowSession(t, 60)
  const items = [await commitClip(client), await commitClip(client)]
  await app.close()
  t.equal((await client.closed).code, 1001)
  const failed = client.ofType('conversation.item.input_audio_transcription.failed')
  t.same(
    failed.map((e) => [e.item_id, e.error.code]),
    items.map((id) => [id, 'session_closed']),
  )
})
