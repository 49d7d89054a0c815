/**
 * Real speech through /v1/realtime with pocketsphinx: clips of test/fixtures/audio as PCM16 at 24 kHz in
 * 100 ms appends, with the client committing (turn_detection null) and with server VAD. The completed text is
 * the text POST /v1/transcribe gives for the same audio; the deltas of each item add up to it; each completed
 * item is in history under the app name of the query. The engine host killed mid-session:
 * test/process/engine-isolation/realtime-host-killed.test.ts.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { sharedApp } from '../../helpers/build.ts'
import { rawRequest } from '../../helpers/http.ts'
import { checkDeltas } from '../../helpers/live-deltas.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'
import {
  completedOf,
  fileText,
  openRealtime,
  pcmOf,
  type RealtimeTestClient,
  type Received,
  silence,
} from './realtime-client.ts'

const installed = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')
const skip = installed ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)'
const clip = (name: string) => path.join(audioFixturesDir, name)

/** The deltas of `itemId`, joined. */
function joinedDeltas(client: RealtimeTestClient, itemId: string): string {
  return client
    .ofType('conversation.item.input_audio_transcription.delta')
    .filter((e) => e.item_id === itemId)
    .map((e) => e.delta as string)
    .join('')
}

/** One pocketsphinx service (in the test process) for the sessions of the first two subtests. */
const pocketsphinxService = sharedApp(t, { speech: { engine: 'pocketsphinx' } })

t.test(
  'turn_detection null: the client commits; the text equals the file transcription',
  { skip },
  async (t) => {
    const { port } = await pocketsphinxService()
    const client = await openRealtime(t, port, { query: '?intent=transcription&app=Notes' })
    await client.next('session.created')
    client.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            transcription: { model: 'gpt-4o-transcribe', language: 'en' },
            turn_detection: null,
          },
        },
      },
    })
    await client.next('session.updated')
    let previous: string | null = null
    for (const name of ['goforward.wav', 'librispeech-1089-134686-0001.wav']) {
      const pcm = pcmOf(clip(name))
      const from = client.events.length
      client.appendPcm(pcm)
      client.send({ type: 'input_audio_buffer.commit' })
      const committed = await client.next('input_audio_buffer.committed', from)
      t.equal(committed.previous_item_id, previous, 'items chain')
      previous = committed.item_id
      const completed = await completedOf(client, committed.item_id)
      t.equal(completed.type, 'conversation.item.input_audio_transcription.completed', name)
      const expected = await fileText(port, pcm, 24000)
      t.ok(expected.length > 0, `${name}: the file transcription has words`)
      t.equal(completed.transcript, expected, `${name}: live text = file text ("${expected}")`)
      checkDeltas(t, joinedDeltas(client, committed.item_id), completed.transcript, name)
    }
    const history = (await rawRequest({ port, path: '/v1/history' })).json
    const notes = history.items.filter((e: { appName: string }) => e.appName === 'Notes')
    t.equal(notes.length, 2, 'each completed item is a dictation in history, under ?app=')
  },
)

t.test('server_vad: speech events, each item committed at the pause and transcribed', { skip }, async (t) => {
  const { port } = await pocketsphinxService()
  const client = await openRealtime(t, port, { query: '?model=gpt-realtime' })
  await client.next('session.created')
  // 16 kHz is dictum's extension, outside OpenAI's types: sent as raw JSON.
  client.sendRaw(
    JSON.stringify({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 16000 },
            turn_detection: {
              type: 'server_vad',
              threshold: 0.5,
              prefix_padding_ms: 300,
              silence_duration_ms: 500,
            },
          },
        },
      },
    }),
  )
  await client.next('session.updated')
  const names = ['goforward.wav', 'librispeech-1089-134686-0001.wav']
  const streamed = Buffer.concat([
    ...names.flatMap((name) => [silence(500, 16000), pcmOf(clip(name), 16000)]),
    silence(1500, 16000),
  ])
  client.appendPcm(streamed, 3200)
  const stopped: Received[] = []
  for (let i = 0; i < names.length; i++) {
    stopped.push(
      await client.waitFor((e) => e.type === 'input_audio_buffer.speech_stopped' && !stopped.includes(e)),
    )
  }
  const started = client.ofType('input_audio_buffer.speech_started')
  t.equal(started.length, 2, 'speech started twice')
  t.ok(started[0]!.audio_start_ms < stopped[0]!.audio_end_ms, 'stopped after it started')
  t.ok(stopped[0]!.audio_end_ms <= started[1]!.audio_start_ms, 'the second utterance after the first')
  const transcripts: string[] = []
  for (const [i, name] of names.entries()) {
    const itemId = started[i]!.item_id as string
    t.equal(stopped[i]!.item_id, itemId, 'one item id from speech_started on')
    const completed = await completedOf(client, itemId)
    t.equal(completed.type, 'conversation.item.input_audio_transcription.completed', name)
    checkDeltas(t, joinedDeltas(client, itemId), completed.transcript, name)
    transcripts.push(completed.transcript)
  }
  // Each utterance as the VAD cut it (audio_start_ms, prefix padding included, to audio_end_ms), against the
  // file transcription of that very audio.
  for (const [i, name] of names.entries()) {
    const from = (started[i]!.audio_start_ms * 16000) / 1000
    const to = (stopped[i]!.audio_end_ms * 16000) / 1000
    const expected = await fileText(port, streamed.subarray(from * 2, to * 2), 16000)
    t.equal(transcripts[i], expected, `${name}: "${transcripts[i]}" = "${expected}"`)
  }
})
