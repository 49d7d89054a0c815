/**
 * Real speech through the Wyoming server with the real pocketsphinx engine: the repo's clips streamed in
 * 100 ms chunks as a Home Assistant satellite sends them; the transcript is the text /v1/transcribe gives
 * for the same file, and the transcript chunks spell it.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { audioFixturesDir } from '../helpers/fixtures.ts'
import { rawRequest } from '../helpers/http.ts'
import { checkDeltas } from '../helpers/live-deltas.ts'
import { transcribe, WyomingClient, wavPcm } from './client.ts'
import { serve } from './serve.ts'

const installed = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')
const skip = installed ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)'

t.test('real speech in chunks: the transcript is /v1/transcribe’s text', { skip }, async (t) => {
  const { server, port } = await serve(t, { plugins: [], speech: { engine: 'pocketsphinx' } })
  // two short clips of two speakers (each is decoded twice: through HTTP and through Wyoming)
  for (const clip of ['goforward.wav', 'librispeech-1089-134686-0001.wav']) {
    const wav = readFileSync(path.join(audioFixturesDir, clip))
    const http = await rawRequest({
      port: server.listener.address!.port,
      method: 'POST',
      path: '/v1/transcribe',
      headers: { 'content-type': 'audio/wav' },
      body: wav,
    })
    t.equal(http.status, 200)
    // A connection of its own per clip, opened once the HTTP text is known: one kept open across the HTTP
    // request got no audio meanwhile, and on a busy machine that request outlasted wyoming.idleTimeoutMs
    // (the connection was closed as idle, as it should be).
    const client = await WyomingClient.connect(port)
    t.teardown(() => client.close())
    const { pcm, rate } = wavPcm(wav)
    t.equal(rate, 16000)
    const events = await transcribe(
      client,
      pcm,
      { rate, width: 2, channels: 1 },
      { chunkBytes: 3200, language: 'en' },
    )
    const transcript = events.find((e) => e.type === 'transcript')!
    t.equal(transcript.data.text, http.json.text, `${clip}: the Wyoming transcript is /v1/transcribe's text`)
    t.match(transcript.data.text, /\w+ \w+/, `${clip}: words were recognised`)
    const chunks = events.filter((e) => e.type === 'transcript-chunk').map((e) => e.data.text)
    checkDeltas(t, chunks.join(''), String(transcript.data.text), clip)
    t.comment(`${clip}: "${transcript.data.text}" in ${chunks.length} chunks`)
  }
})
