/**
 * `/v1/realtime?dictation=true`: a dictation session, whose items go through the editing stage, and whose
 * "scratch that" item names the item it takes back (`removed_item_ids`); without it the session transcribes
 * the words as said. The streaming fixture engine says the session's keywords first, one word per 100 ms of
 * loud audio; items are committed by the client.
 */
import path from 'node:path'
import t, { type Test } from 'tap'
import { build, FIXTURES } from '../../helpers/build.ts'
import { listen } from '../../helpers/http.ts'
import { openRealtime, type RealtimeTestClient, refusedHandshake } from './realtime-client.ts'

const STREAMING = path.join(FIXTURES, 'plugins/streaming-engine.ts')

/** Loud PCM16 at 16 kHz for `words` words of the fixture (and half a word more, which adds none). */
function loud(words: number): Buffer {
  const samples = Math.round(1600 * (words + 0.5))
  const pcm = Buffer.alloc(samples * 2)
  for (let i = 0; i < samples; i++) pcm.writeInt16LE(i % 2 === 0 ? 16000 : -16000, i * 2)
  return pcm
}

async function say(client: RealtimeTestClient, keywords: string[]): Promise<Record<string, unknown>> {
  const from = client.events.length
  // 16 kHz is dictum's extension, outside OpenAI's types: sent as raw JSON.
  client.sendRaw(
    JSON.stringify({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 16000 },
            turn_detection: null,
            transcription: { keywords },
          },
        },
      },
    }),
  )
  await client.next('session.updated', from)
  client.appendPcm(loud(keywords.length), 3200)
  client.send({ type: 'input_audio_buffer.commit' })
  return client.next('conversation.item.input_audio_transcription.completed', from)
}

async function dictum(t: Test) {
  const app = await build(t, { plugins: [STREAMING], speech: { engine: 'fixture-streaming-inline' } })
  return listen(t, app)
}

t.test('?dictation=true: commands carried out, "scratch that" names the item it takes back', async (t) => {
  const port = await dictum(t)
  const client = await openRealtime(t, port, { query: '?intent=transcription&dictation=true' })
  await client.next('session.created')
  const first = await say(client, ['hello', 'comma', 'there'])
  t.equal(first.transcript, 'hello, there')
  t.notOk('removed_item_ids' in first, 'nothing taken back')
  const second = await say(client, ['scratch that'])
  t.equal(second.transcript, '')
  t.same(second.removed_item_ids, [first.item_id])
})

t.test('without it the session transcribes the words as said; a bad value is refused', async (t) => {
  const port = await dictum(t)
  const client = await openRealtime(t, port)
  await client.next('session.created')
  t.equal((await say(client, ['hello', 'comma', 'there'])).transcript, 'hello comma there')
  const refused = await refusedHandshake(port, { query: '?intent=transcription&dictation=yes' })
  t.equal(refused.status, 400)
  t.match(refused.body.error, /dictation must be "true" or "false"/)
})
