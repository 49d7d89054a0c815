/**
 * The Wyoming server through `startServer` (as `dictum serve` runs it) with a Wyoming client written from the
 * protocol document (client.ts) on raw TCP: off by default; started and stopped with the service; describe
 * → info; a transcript with its streaming events (fixture engines: exact texts, format conversion, chunks
 * while audio arrives); malformed and over-long events → error and close while another client goes on;
 * misuse → error and the connection goes on; maxSessions; the idle timeout.
 */
import t, { type Test } from 'tap'
import { clipPcm } from '../live/helpers.ts'
import { type Event, transcribe, WyomingClient } from './client.ts'
import { serve } from './serve.ts'

async function connect(t: Test, port: number) {
  const client = await WyomingClient.connect(port)
  t.teardown(() => client.close())
  return client
}

const GO = clipPcm('goforward.wav')
const MONO16 = { rate: 16000, width: 2, channels: 1 }
const types = (events: Event[]) => events.map((e) => e.type)

t.test('off by default; on, it starts and stops with the service and logs its address', async (t) => {
  const off = await serve(t, { wyoming: {} })
  t.equal(off.server.wyoming.address, null, 'wyoming.enabled is false by default')

  const { server, lines, port } = await serve(t)
  t.ok(port > 0, 'listening')
  const line = lines.find((l) => l.msg === 'dictum Wyoming server listening')
  t.equal(line?.address, `tcp://127.0.0.1:${port}`, 'the address is logged')
  const client = await connect(t, port)
  client.send('describe')
  t.equal((await client.next())?.type, 'info')
  await server.close()
  await client.closedByServer()
  await t.rejects(WyomingClient.connect(port), { code: 'ECONNREFUSED' }, 'closed with the service')
})

t.test('describe → info: the asr program, its models, transcript streaming', async (t) => {
  const { port } = await serve(t)
  const client = await connect(t, port)
  client.send('describe')
  const info = (await client.next())!
  t.equal(info.type, 'info')
  t.match(info.header.version, /^\d+\.\d+\.\d+$/, 'events carry the protocol version')
  const [program, ...others] = info.data.asr as Array<Record<string, unknown>>
  t.equal(others.length, 0, 'one asr program')
  t.match(program, {
    name: 'dictum',
    description: String,
    attribution: { name: 'dictum', url: String },
    installed: true,
    version: /^\d+\.\d+\.\d+/,
    supports_transcript_streaming: true,
  })
  const models = program!.models as Array<Record<string, unknown>>
  const echo = models.find((m) => m.name === 'fixture-echo')
  t.match(echo, { installed: true, languages: ['en'], attribution: { name: 'dictum' }, description: String })
  const any = models.find((m) => m.name === 'fixture-streaming-inline')
  t.ok(((any?.languages ?? []) as string[]).includes('de'), 'an engine of any language lists language codes')
  t.ok(
    models.every((m) => Array.isArray(m.languages) && (m.languages as string[]).every((l) => l !== '*')),
    'no wildcard',
  )
})

t.test('a transcript, with the streaming events around it; the connection serves several', async (t) => {
  const { server, port } = await serve(t)
  const client = await connect(t, port)
  const events = await transcribe(client, GO, MONO16, { language: 'en' })
  t.same(types(events), ['transcript-start', 'transcript-chunk', 'transcript', 'transcript-stop'])
  const transcript = events[2]!
  const frames = GO.length / 2
  t.same(transcript.data, { text: `heard ${frames} samples`, language: 'en' })
  t.equal(events[1]!.data.text, transcript.data.text, 'the chunks spell the transcript')
  const history = await server.app.inject({ method: 'GET', url: '/v1/history' })
  t.match(history.json().items[0], { appName: 'wyoming', finalText: `heard ${frames} samples` }, 'in history')

  // The same audio as 48 kHz stereo 32-bit: converted to what the engine takes.
  const stereo = Buffer.alloc(GO.length * 3 * 2 * 2)
  for (let i = 0; i < frames; i++) {
    const sample = GO.readInt16LE(i * 2) * 65536
    for (let k = 0; k < 3; k++) {
      // Sample-and-hold upsampling is enough: the engine counts samples.
      stereo.writeInt32LE(sample, (i * 3 + k) * 8)
      stereo.writeInt32LE(sample, (i * 3 + k) * 8 + 4)
    }
  }
  const converted = await transcribe(
    client,
    stereo,
    { rate: 48000, width: 4, channels: 2 },
    { chunkBytes: 4000 },
  )
  t.equal(
    converted.find((e) => e.type === 'transcript')?.data.text,
    `heard ${frames} samples`,
    '48 kHz stereo 32-bit becomes the same 16 kHz samples',
  )

  // No audio at all: an empty transcript.
  client.send('audio-start', MONO16)
  client.send('audio-stop')
  const empty = await client.until('transcript-stop')
  t.same(empty.find((e) => e.type === 'transcript')?.data, { text: '' })
})

t.test('with a streaming engine, transcript chunks arrive while the audio does', async (t) => {
  const { port } = await serve(t, { speech: { engine: 'fixture-streaming-inline' } })
  const client = await connect(t, port)
  client.send('transcribe', { name: 'fixture-streaming-inline' })
  client.send('audio-start', MONO16)
  const half = Math.floor(GO.length / 4) * 2
  for (let at = 0; at < half; at += 3200)
    client.send('audio-chunk', MONO16, GO.subarray(at, Math.min(at + 3200, half)))
  const early = await client.until('transcript-chunk')
  t.same(types(early), ['transcript-start', 'transcript-chunk'], 'words before audio-stop')
  for (let at = half; at < GO.length; at += 3200)
    client.send('audio-chunk', MONO16, GO.subarray(at, at + 3200))
  client.send('audio-stop')
  const rest = await client.until('transcript-stop')
  const chunks = [...early, ...rest].filter((e) => e.type === 'transcript-chunk').map((e) => e.data.text)
  const transcript = rest.find((e) => e.type === 'transcript')!
  t.ok(chunks.length >= 2, `${chunks.length} chunks`)
  t.equal(chunks.join(''), transcript.data.text, 'the chunks concatenate to the transcript')
  t.match(transcript.data.text, /^alpha bravo/)
})

t.test('malformed or over-long events: an error, then the connection closes; others go on', async (t) => {
  const { port } = await serve(t, { realtime: { maxFrameBytes: 4096 } })
  const good = await connect(t, port)
  const cases: Array<[string, string | Buffer, RegExp]> = [
    ['not JSON', 'hello there\n', /header line is not valid JSON/],
    ['no type', '{"data":{}}\n', /no "type" string/],
    ['a negative length', '{"type":"audio-chunk","payload_length":-1}\n', /payload_length/],
    ['a payload over the limit', '{"type":"audio-chunk","payload_length":5000}\n', /longer than 4096 bytes/],
    ['a header line over the limit', `{"type":"${'x'.repeat(5000)}`, /header line is longer than 4096 bytes/],
    ['data that is not an object', '{"type":"describe","data_length":2}\n[]', /data must be a JSON object/],
  ]
  for (const [name, bytes, message] of cases) {
    const bad = await connect(t, port)
    bad.raw(bytes)
    const error = await bad.next()
    t.equal(error?.type, 'error', `${name}: an error event`)
    t.match(error?.data, { text: message, code: 'INVALID_REQUEST' }, name)
    await bad.closedByServer()
    t.pass(`${name}: the connection is closed`)
  }
  const events = await transcribe(good, GO, MONO16)
  t.match(events.find((e) => e.type === 'transcript')?.data, { text: /^heard/ }, 'the good client goes on')
})

t.test('misuse is an error event and the connection goes on', async (t) => {
  const { port } = await serve(t)
  const client = await connect(t, port)
  client.send('audio-stop')
  t.match(await client.next(), { type: 'error', data: { text: /audio-stop without an audio stream/ } })
  client.send('audio-start', { rate: 16000, width: 1, channels: 1 })
  t.match(await client.next(), { type: 'error', data: { text: /"width" must be 2, 3 or 4/ } })
  client.send('transcribe', { name: 'no-such-model' })
  client.send('audio-start', MONO16)
  t.match(await client.next(), {
    type: 'error',
    data: { text: /^Model not found: no-such-model/, code: 'MODEL_NOT_FOUND' },
  })
  client.send('audio-chunk', MONO16, GO.subarray(0, 3200))
  client.send('audio-stop')
  client.send('some-future-event', { x: 1 })
  client.send('ping', { text: 'still there?' })
  t.match(
    await client.next(),
    { type: 'pong', data: { text: 'still there?' } },
    'the refused stream was dropped',
  )
  client.send('transcribe', { name: 'fixture-echo', language: 'fr' })
  client.send('audio-start', MONO16)
  t.match(await client.next(), { type: 'error', data: { text: /language "fr"/, code: 'INVALID_REQUEST' } })
  const events = await transcribe(client, GO, MONO16, { name: 'fixture-echo' })
  t.equal(events.find((e) => e.type === 'transcript')?.data.text, `heard ${GO.length / 2} samples`)
})

t.test('realtime.maxSessions bounds the streams at once', async (t) => {
  const { port } = await serve(t, { realtime: { maxSessions: 1 } })
  const first = await connect(t, port)
  const second = await connect(t, port)
  first.send('audio-start', MONO16)
  first.send('ping')
  t.equal((await first.next())?.type, 'pong', 'the first stream is open')
  second.send('audio-start', MONO16)
  t.match(await second.next(), {
    type: 'error',
    data: { code: 'TOO_MANY_SESSIONS', text: /Too many live sessions/ },
  })
  first.send('audio-chunk', MONO16, GO)
  first.send('audio-stop')
  t.match((await first.until('transcript-stop')).find((e) => e.type === 'transcript')?.data, {
    text: /^heard/,
  })
  const events = await transcribe(second, GO, MONO16)
  t.match(
    events.find((e) => e.type === 'transcript')?.data,
    { text: /^heard/ },
    'a place once the first ended',
  )
})

// Its own server: with a 1 s idle timeout, a busy machine could close the streams above between two events.
t.test('the idle timeout closes a stream that sends nothing', async (t) => {
  const { port } = await serve(t, { realtime: { maxSessions: 1, idleTimeoutMs: 1000 } })
  const idle = await connect(t, port)
  t.match(await idle.next(30_000), { type: 'error', data: { code: 'SESSION_IDLE_TIMEOUT' } })
  await idle.closedByServer()
})
