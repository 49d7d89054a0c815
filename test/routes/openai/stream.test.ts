/**
 * `stream=true` on POST /v1/audio/transcriptions over real HTTP, with fixture engines that name each piece:
 * one delta per piece, deltas that concatenate to the done text and equal the non-streamed text (also with a
 * replacement rule whose trigger spans two pieces), errors before the stream as JSON with their status, an
 * engine failure after it as an `error` event, and a client that goes away stopping the transcription.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { stats } from '../../fixtures/plugins/pieces-engine.ts'
import { build, FIXTURES } from '../../helpers/build.ts'
import { listen } from '../../helpers/http.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'

const PIECES_ENGINE = path.join(FIXTURES, 'plugins/pieces-engine.ts')
const JFK = readFileSync(path.join(audioFixturesDir, 'jfk.wav'))
const LONG = readFileSync(path.join(audioFixturesDir, 'extra/silero-vad-test-en-60s.wav'))

/** Fixed one-second pieces (no VAD), so the number of pieces is the audio's length in seconds. */
function config(engineOptions: Record<string, unknown> = {}) {
  return {
    plugins: [PIECES_ENGINE],
    speech: { engine: 'fixture-pieces', engines: { 'fixture-pieces': engineOptions } },
    vad: { enabled: false, maxSegmentSeconds: 1 },
  }
}

function post(port: number, fields: Record<string, string>, audio = JFK, signal?: AbortSignal) {
  const body = new FormData()
  body.append('file', new Blob([audio], { type: 'audio/wav' }), 'a.wav')
  for (const [name, value] of Object.entries(fields)) body.append(name, value)
  return fetch(`http://127.0.0.1:${port}/v1/audio/transcriptions`, {
    method: 'POST',
    body,
    ...(signal ? { signal } : {}),
  })
}

/** The `data:` events of a server-sent event stream, parsed. */
function events(text: string): Array<Record<string, unknown>> {
  t.ok(text.endsWith('\n\n'), 'the stream ends after a whole event')
  return text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      if (!block.startsWith('data: ')) throw new Error(`not a data event: ${block}`)
      return JSON.parse(block.slice('data: '.length))
    })
}

t.test('one delta per piece; the deltas make the done text, the non-streamed text', async (t) => {
  const app = await build(t, config())
  const port = await listen(t, app)
  const plain = (await (await post(port, {})).json()) as { text: string }
  const response = await post(port, { stream: 'true', model: 'whisper-1' })
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^text\/event-stream/)
  t.equal(response.headers.get('cache-control'), 'no-cache')
  const received = events(await response.text())
  const done = received.pop()!
  t.same(Object.keys(done).sort(), ['languages', 'text', 'type'])
  t.equal(done.type, 'transcript.text.done')
  t.equal(done.text, plain.text, 'the done text is the non-streamed text')
  t.equal(received.length, 11, 'a delta for each of the 11 one-second pieces')
  for (const event of received) t.same(Object.keys(event).sort(), ['delta', 'type'])
  t.ok(
    received.every((e) => e.type === 'transcript.text.delta'),
    'deltas first',
  )
  t.equal(received.map((e) => e.delta).join(''), done.text, 'the deltas concatenate to the done text')
  t.equal(received[0]!.delta, 'piece at 0s (16000 samples)')
  t.equal(received[1]!.delta, ' piece at 1s (16000 samples)', 'later pieces start with the joining space')

  const text = await post(port, { stream: 'true', response_format: 'text' })
  t.match(text.headers.get('content-type'), /^text\/event-stream/, 'response_format text streams too')
  t.equal(events(await text.text()).pop()!.text, plain.text)
})

t.test('a replacement whose trigger spans two pieces: deltas still make the done text', async (t) => {
  // Every piece says "open": "open open" becomes "OpenOpen" only once the second word has arrived.
  const app = await build(t, config({ text: 'open' }))
  const port = await listen(t, app)
  const rule = await app.inject({
    method: 'POST',
    url: '/v1/dictionary/replacements',
    payload: { mode: 'append', entries: [{ triggers: ['open open'], replacement: 'OpenOpen' }] },
  })
  t.equal(rule.statusCode, 200)
  const plain = (await (await post(port, {}, JFK.subarray(0, 44 + 3 * 32000))).json()) as { text: string }
  t.equal(plain.text, 'OpenOpen open', 'three pieces, the first two replaced')
  const received = events(
    await (await post(port, { stream: 'true' }, JFK.subarray(0, 44 + 3 * 32000))).text(),
  )
  const done = received.pop()!
  t.equal(done.text, plain.text)
  const deltas = received.map((e) => e.delta)
  t.equal(deltas.join(''), plain.text, 'the deltas concatenate to the replaced text')
  t.equal(deltas[0], 'OpenOpen', 'nothing is sent while the trigger may still match')
})

t.test('errors before the stream are JSON with their status; after it, an error event', async (t) => {
  const app = await build(t, config({ failAt: 2 }))
  const port = await listen(t, app)
  const srt = await post(port, { stream: 'true', response_format: 'srt' })
  t.equal(srt.status, 400)
  t.match(await srt.json(), {
    error: {
      message: /response_format 'srt' is not compatible with stream=true\. Use 'json' or 'text' instead\./,
      type: 'invalid_request_error',
      param: 'response_format',
    },
  })
  const undecodable = await post(port, { stream: 'true' }, Buffer.from('not audio at all'))
  t.equal(undecodable.status, 400, 'audio that does not decode: an ordinary 400')
  t.match(undecodable.headers.get('content-type'), /^application\/json/)
  t.match(await undecodable.json(), { error: { message: /^Could not decode audio/ } })

  const failing = await post(port, { stream: 'true' })
  t.equal(failing.status, 200, 'the stream had started when the third piece failed')
  const received = events(await failing.text())
  t.same(
    received.map((e) => e.type),
    ['transcript.text.delta', 'transcript.text.delta', 'error'],
    'two deltas, then the error, then the end',
  )
  t.match(received[2], {
    type: 'error',
    error: {
      message: /^Speech engine failed: .*fixture failure on the piece at 2s/,
      type: 'server_error',
      code: 'engine_failed',
    },
  })
})

t.test('a client that goes away stops the transcription', async (t) => {
  // One slot, so one piece is in flight at a time (several slots: test/routes/transcribe/parallel-pieces).
  const base = config({ delayMs: 200 })
  const app = await build(t, { ...base, speech: { ...base.speech, concurrency: 1 } })
  const port = await listen(t, app)
  const controller = new AbortController()
  const response = await post(port, { stream: 'true' }, LONG, controller.signal)
  const reader = response.body!.getReader()
  const first = await reader.read()
  t.match(new TextDecoder().decode(first.value), /^data: \{"type":"transcript\.text\.delta"/)
  const before = stats.started
  controller.abort()
  // 60 pieces of 200 ms: a transcription that went on would start 5 more pieces each second.
  await sleep(1000)
  const after = stats.started
  await sleep(1000)
  t.equal(stats.started, after, 'no piece started after the client left')
  t.ok(after - before <= 1, `${after - before} piece started after the first delta (the one in flight)`)
})
