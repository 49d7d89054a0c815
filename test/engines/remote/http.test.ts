/**
 * The remote engine selected in a real app, against small local servers: a client that goes away aborts the
 * upstream upload; upstream failures reach the client as 502 in both error shapes, with the key redacted.
 */

import { readFileSync } from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { listen } from '../../helpers/http.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'
import { startTranscriptionServer } from './transcription-server.ts'

const audio = readFileSync(path.join(audioFixturesDir, 'goforward.wav'))
const KEY = 'sk-test-0123456789abcdefghij'

const remoteApp = (t: Parameters<typeof build>[0], baseUrl: string) =>
  build(t, { speech: { engine: 'remote', engines: { remote: { baseUrl, apiKey: KEY, retries: 0 } } } })

t.test('a client that goes away aborts the upstream request', async (t) => {
  const upstream = await startTranscriptionServer(t, () => 'hang')
  const app = await remoteApp(t, upstream.baseUrl)
  const port = await listen(t, app)
  const request = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/v1/transcribe',
    headers: { 'content-type': 'audio/wav' },
  })
  request.on('error', () => {})
  request.end(audio)
  await upstream.arrived(1)
  request.destroy()
  await upstream.abandonedCount(1)
  t.equal(upstream.abandoned, 1, 'the upload to the server was dropped when the client left')
  t.equal(upstream.uploads.length, 1)
})

t.test('upstream failures: 502 in dictum shape and in OpenAI shape, never the key', async (t) => {
  const upstream = await startTranscriptionServer(t, (upload) => ({
    status: 500,
    json: { error: { message: `internal failure for ${upload.headers.authorization}` } },
  }))
  const app = await remoteApp(t, upstream.baseUrl)
  const res = await app.inject({
    method: 'POST',
    url: '/v1/transcribe',
    payload: audio,
    headers: { 'content-type': 'audio/wav' },
  })
  t.equal(res.statusCode, 502)
  t.same(res.json(), {
    error: `Remote transcription server failed: 127.0.0.1:${upstream.port} answered HTTP 500: internal failure for Bearer [redacted].`,
    code: 'REMOTE_ENGINE_FAILED',
  })
  const form = new FormData()
  form.append('file', new Blob([audio], { type: 'audio/wav' }), 'a.wav')
  const request = new Request('http://127.0.0.1/', { method: 'POST', body: form })
  const openai = await app.inject({
    method: 'POST',
    url: '/v1/audio/transcriptions',
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { 'content-type': request.headers.get('content-type')! },
  })
  t.equal(openai.statusCode, 502)
  t.match(openai.json(), { error: { type: 'server_error', code: 'remote_engine_failed', param: null } })
  t.notOk(res.body.includes(KEY) || openai.body.includes(KEY), 'the key is in neither body')
})
