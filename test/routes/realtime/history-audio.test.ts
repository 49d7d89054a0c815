/**
 * Live utterances keep their recording with their history entry, as /v1/dictate's do (issue 23, item 1):
 * a realtime session at 16 kHz (so the samples reach dictum unresampled), the client committing each
 * utterance; the entry then has audio, and GET /v1/history/{id}/audio gives back exactly the samples sent
 * (FLAC is lossless). Real speech on pocketsphinx (its streaming path), the fixture engine without streaming
 * (the whole-utterance path), and `history.keepAudio: false` (no recording kept).
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { build, FIXTURES } from '../../helpers/build.ts'
import { listen, rawRequest } from '../../helpers/http.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'
import { openRealtime, pcmOf } from './realtime-client.ts'

const installed = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')
const STREAMING = path.join(FIXTURES, 'plugins/streaming-engine.ts')

/** Says `pcm` (16 kHz PCM16) in one committed utterance; answers the completed event. */
async function say(port: number, t: Test, pcm: Buffer) {
  const client = await openRealtime(t, port, { query: '?intent=transcription&app=Live%20Audio' })
  await client.next('session.created')
  // 16 kHz is dictum's extension, outside OpenAI's types: sent as raw JSON.
  client.sendRaw(
    JSON.stringify({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: { input: { format: { type: 'audio/pcm', rate: 16000 }, turn_detection: null } },
      },
    }),
  )
  await client.next('session.updated')
  client.appendPcm(pcm, 3200)
  client.send({ type: 'input_audio_buffer.commit' })
  const completed = await client.next('conversation.item.input_audio_transcription.completed')
  client.socket.close()
  return completed
}

/** The newest history entry, and its recording decoded back to 16 kHz PCM16 (null when there is none). */
async function storedRecording(port: number) {
  const list = await rawRequest({ port, path: '/v1/history' })
  const entry = list.json.items[0]
  const flac = await fetch(`http://127.0.0.1:${port}/v1/history/${entry.id}/audio`)
  if (flac.status !== 200) return { entry, status: flac.status, pcm: null }
  const pcm = execFileSync('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-f', 's16le', '-ac', '1', '-'], {
    input: Buffer.from(await flac.arrayBuffer()),
  })
  return { entry, status: flac.status, type: flac.headers.get('content-type'), pcm }
}

t.test(
  'pocketsphinx, streaming: the entry keeps the utterance, the very samples sent',
  { skip: installed ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)' },
  async (t) => {
    const app = await build(t, { speech: { engine: 'pocketsphinx' } })
    const port = await listen(t, app)
    const pcm = pcmOf(path.join(audioFixturesDir, 'goforward.wav'), 16000)
    const completed = await say(port, t, pcm)
    t.match(completed.transcript, /forward/, `real speech: ${completed.transcript}`)
    const { entry, status, type, pcm: back } = await storedRecording(port)
    t.equal(entry.finalText, completed.transcript, 'the entry is the utterance')
    t.equal(entry.appName, 'Live Audio')
    t.equal(entry.hasAudio, true, 'the entry has audio')
    t.equal(status, 200)
    t.equal(type, 'audio/flac')
    t.equal(back?.length, pcm.length, 'as many samples as were sent')
    t.ok(back?.equals(pcm), 'the samples sent, unchanged')
  },
)

t.test('the whole-utterance path (no streaming) keeps it too', async (t) => {
  const app = await build(t, {
    plugins: [STREAMING],
    speech: {
      engine: 'fixture-streaming-inline',
      engines: { 'fixture-streaming-inline': { streaming: false } },
    },
    // A tone is no speech to the VAD, which would empty a client-committed item on this path.
    vad: { enabled: false },
  })
  const port = await listen(t, app)
  const pcm = Buffer.alloc(16000 * 2)
  for (let i = 0; i < 16000; i++) pcm.writeInt16LE(Math.round(12000 * Math.sin(i / 7)), i * 2)
  const completed = await say(port, t, pcm)
  t.match(completed.transcript, /alpha/, 'the fixture heard words')
  const { entry, pcm: back } = await storedRecording(port)
  t.equal(entry.hasAudio, true)
  t.ok(back?.equals(pcm), 'the samples sent, unchanged')
})

t.test('history.keepAudio false: the entry is stored without a recording', async (t) => {
  const app = await build(t, {
    plugins: [STREAMING],
    speech: { engine: 'fixture-streaming-inline' },
    history: { keepAudio: false },
  })
  const port = await listen(t, app)
  const pcm = Buffer.alloc(16000 * 2)
  for (let i = 0; i < 16000; i++) pcm.writeInt16LE(i % 2 === 0 ? 16000 : -16000, i * 2)
  await say(port, t, pcm)
  const { entry, status } = await storedRecording(port)
  t.equal(entry.hasAudio, false)
  t.equal(status, 404, 'GET …/audio: none kept')
})
