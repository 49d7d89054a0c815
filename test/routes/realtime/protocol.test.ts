/**
 * /v1/realtime's protocol over real loopback WebSockets, on the fixture engine (the speech itself is
 * speech.test.ts's): the guard before the upgrade, the `realtime` subprotocol, malformed events, limits and
 * close codes, the GA and beta event shapes.
 */
import path from 'node:path'
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { listen, rawRequest } from '../../helpers/http.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'
import { openRealtime, pcmOf, refusedHandshake, silence } from './realtime-client.ts'

const TOKEN = 'sekret-realtime-token-0123456789'

t.test(
  'a transcription session opens with session.created in the GA shape; every event has an event_id',
  async (t) => {
    const app = await build(t)
    const port = await listen(t, app)
    const client = await openRealtime(t, port)
    const created = await client.next('session.created')
    t.match(created.event_id, /^event_\w+$/)
    t.match(created.session, {
      type: 'transcription',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24000 },
          turn_detection: {
            type: 'server_vad',
            threshold: 0.5,
            prefix_padding_ms: 300,
            silence_duration_ms: 500,
          },
        },
      },
    })
    client.send({
      type: 'session.update',
      event_id: 'client-1',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            transcription: { model: 'gpt-4o-transcribe', language: 'en', prompt: 'dictation' },
            turn_detection: null,
          },
        },
      },
    })
    const updated = await client.next('session.updated')
    t.match(updated.session.audio.input, {
      transcription: { model: 'gpt-4o-transcribe', language: 'en', prompt: 'dictation' },
      turn_detection: null,
    })
    // Without turn detection the client commits: the item is committed, then transcribed.
    client.appendPcm(pcmOf(path.join(audioFixturesDir, 'goforward.wav')))
    client.send({ type: 'input_audio_buffer.commit' })
    const committed = await client.next('input_audio_buffer.committed')
    t.match(committed.item_id, /^item_/)
    t.equal(committed.previous_item_id, null)
    const completed = await client.next('conversation.item.input_audio_transcription.completed')
    t.equal(completed.item_id, committed.item_id)
    t.equal(completed.content_index, 0)
    t.match(completed.transcript, /^heard \d+ samples$/, "the fixture engine's text")
    t.match(completed.usage, { type: 'duration' })
    for (const event of client.events) t.match(event.event_id, /^event_\w+$/, `${event.type} has an event_id`)
    const ids = new Set(client.events.map((e) => e.event_id))
    t.equal(ids.size, client.events.length, 'event ids are unique')
  },
)

t.test('the beta shape: OpenAI-Beta realtime=v1 and transcription_session.update', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const client = await openRealtime(t, port, { headers: { 'OpenAI-Beta': 'realtime=v1' } })
  const created = await client.next('transcription_session.created')
  t.match(created.session, { input_audio_format: 'pcm16', turn_detection: { type: 'server_vad' } })
  client.send({
    type: 'transcription_session.update',
    session: {
      input_audio_format: 'pcm16',
      input_audio_transcription: { model: 'whisper-1', language: 'en' },
      turn_detection: {
        type: 'server_vad',
        threshold: 0.6,
        silence_duration_ms: 700,
        prefix_padding_ms: 200,
      },
    },
  })
  const updated = await client.waitFor((e) => e.type === 'transcription_session.updated')
  t.match(updated.session, {
    input_audio_transcription: { model: 'whisper-1', language: 'en' },
    turn_detection: { type: 'server_vad', threshold: 0.6, silence_duration_ms: 700, prefix_padding_ms: 200 },
  })
})

t.test('malformed events get error events in OpenAI shape and the session goes on', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const client = await openRealtime(t, port)
  await client.next('session.created')
  const cases: Array<[string | Buffer, string, string | null, boolean?]> = [
    ['{not json', 'invalid_json', null],
    ['[1,2]', 'invalid_json', null],
    [JSON.stringify({ event_id: 'e1' }), 'missing_required_parameter', 'type'],
    [JSON.stringify({ type: 'no.such.event', event_id: 'e2' }), 'invalid_value', 'type'],
    [JSON.stringify({ type: 'response.create' }), 'unsupported_event', 'type'],
    [JSON.stringify({ type: 'input_audio_buffer.append' }), 'missing_required_parameter', 'audio'],
    [JSON.stringify({ type: 'input_audio_buffer.append', audio: 42 }), 'invalid_type', 'audio'],
    [JSON.stringify({ type: 'input_audio_buffer.append', audio: '!!!' }), 'invalid_value', 'audio'],
    [JSON.stringify({ type: 'input_audio_buffer.append', audio: 'AA==' }), 'invalid_value', 'audio'],
    [JSON.stringify({ type: 'session.update' }), 'missing_required_parameter', 'session'],
    [
      JSON.stringify({ type: 'session.update', session: { type: 'realtime' } }),
      'invalid_value',
      'session.type',
    ],
    [
      JSON.stringify({
        type: 'session.update',
        session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 8000 } } } },
      }),
      'invalid_value',
      'session.audio.input.format.rate',
    ],
    [
      JSON.stringify({
        type: 'session.update',
        session: { audio: { input: { turn_detection: { type: 'server_vad', threshold: 3 } } } },
      }),
      'invalid_value',
      'session.audio.input.turn_detection.threshold',
    ],
    [
      JSON.stringify({ type: 'transcription_session.update', session: { input_audio_format: 'g711_ulaw' } }),
      'invalid_value',
      'session.input_audio_format',
    ],
    [Buffer.from([1, 2, 3, 4]), 'invalid_frame', null, true],
  ]
  for (const [frame, code, param, binary] of cases) {
    const from = client.events.length
    client.sendRaw(frame, binary)
    const error = await client.next('error', from)
    t.match(
      error,
      {
        type: 'error',
        event_id: /^event_/,
        error: { type: 'invalid_request_error', code, param, message: /^Invalid realtime event: / },
      },
      `${String(frame).slice(0, 60)} → ${code}`,
    )
  }
  // A commit with nothing to commit: OpenAI's code, from the live session, which goes on.
  const before = client.events.length
  client.send({ type: 'input_audio_buffer.commit', event_id: 'c1' })
  t.match((await client.next('error', before)).error, {
    type: 'invalid_request_error',
    code: 'input_audio_buffer_commit_empty',
  })
  const withId = client
    .ofType('error')
    .find((e) => e.error.code === 'invalid_value' && e.error.param === 'type')
  t.equal(withId?.error.event_id, 'e2', "the client's event_id is named in the error")
  // Still serving: an update is applied after all that.
  const from = client.events.length
  client.send({
    type: 'session.update',
    session: { type: 'transcription', audio: { input: { turn_detection: null } } },
  })
  const updated = await client.next('session.updated', from)
  t.equal(updated.session.audio.input.turn_detection, null)
  t.equal(client.socket.readyState, client.socket.OPEN)
})

t.test('an unknown transcription model is an error event; the session keeps its model', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const client = await openRealtime(t, port)
  await client.next('session.created')
  client.send({
    type: 'session.update',
    event_id: 'm1',
    session: { type: 'transcription', audio: { input: { transcription: { model: 'no-such-model' } } } },
  })
  const error = await client.next('error')
  t.match(error.error, {
    code: 'model_not_found',
    param: 'model',
    event_id: 'm1',
    message: /^Model not found: no-such-model/,
  })
  t.equal(client.ofType('session.updated').length, 0)
})

t.test('an unknown model in the query: error event, then close 1008', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const client = await openRealtime(t, port, { query: '?model=no-such-model' })
  const closed = await client.closed
  t.equal(closed.code, 1008)
  t.match(client.ofType('error')[0]?.error, { code: 'model_not_found' })
  // OpenAI's realtime conversation models and engine ids are accepted.
  for (const query of ['?model=gpt-realtime', '?model=gpt-4o-realtime-preview', '?model=fixture-echo']) {
    const ok = await openRealtime(t, port, { query })
    t.ok(await ok.next('session.created'), query)
    ok.socket.close()
  }
})

t.test('the guard runs before the upgrade: Host, Origin', async (t) => {
  const app = await build(t, { api: { allowedOrigins: ['https://app.example'] } })
  const port = await listen(t, app)
  const foreign = await refusedHandshake(port, { headers: { Origin: 'https://evil.example' } })
  t.equal(foreign.status, 403)
  t.same(foreign.body, {
    error: 'Forbidden: cross-origin requests are not allowed.',
    code: 'FORBIDDEN_ORIGIN',
  })
  const host = await refusedHandshake(port, { headers: { Host: 'rebind.example:80' } })
  t.equal(host.status, 403)
  t.equal(host.body.code, 'FORBIDDEN_HOST')
  for (const origin of ['http://localhost:5173', 'https://app.example']) {
    const client = await openRealtime(t, port, { headers: { Origin: origin } })
    t.ok(await client.next('session.created'), `${origin} is allowed`)
    client.socket.close()
  }
})

t.test('api.token: from Authorization or the browser subprotocol; never echoed', async (t) => {
  const app = await build(t, { api: { token: TOKEN } })
  const port = await listen(t, app)
  const none = await refusedHandshake(port)
  t.equal(none.status, 401)
  t.equal(none.body.code, 'UNAUTHORIZED')
  const wrong = await refusedHandshake(port, { protocols: ['realtime', 'openai-insecure-api-key.wrong'] })
  t.equal(wrong.status, 401)
  const wrongHeader = await refusedHandshake(port, { headers: { Authorization: 'Bearer wrong' } })
  t.equal(wrongHeader.status, 401)

  const byHeader = await openRealtime(t, port, { headers: { Authorization: `Bearer ${TOKEN}` } })
  await byHeader.next('session.created')
  const bySubprotocol = await openRealtime(t, port, {
    protocols: ['realtime', `openai-insecure-api-key.${TOKEN}`, 'openai-beta.realtime-v1'],
    headers: { Origin: 'http://localhost:3000' },
  })
  t.equal(bySubprotocol.socket.protocol, 'realtime', 'the realtime subprotocol is answered, not the token')
  await bySubprotocol.next('session.created')
  // A client offering the token alone gets no subprotocol back: its handshake fails rather than echo it.
  const tokenOnly = await openRealtime(t, port, { protocols: [`openai-insecure-api-key.${TOKEN}`] }).then(
    () => 'opened',
    (err: Error) => err.message,
  )
  t.match(tokenOnly, /Server sent no subprotocol/)
  // The token is in no message (malformed frames included, as the error texts quote nothing of them).
  bySubprotocol.sendRaw(JSON.stringify({ type: TOKEN }))
  bySubprotocol.sendRaw(JSON.stringify({ type: 'input_audio_buffer.append', audio: TOKEN }))
  await bySubprotocol.waitFor(() => bySubprotocol.ofType('error').length === 2)
  for (const text of [...byHeader.raw, ...bySubprotocol.raw]) t.notMatch(text, TOKEN)
})

t.test('a plain GET without the upgrade: 426 saying it is a WebSocket', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const res = await rawRequest({ port, path: '/v1/realtime' })
  t.equal(res.status, 426)
  t.equal(res.headers.upgrade, 'websocket')
  t.equal(res.json.code, 'INVALID_REQUEST')
  const bad = await refusedHandshake(port, { query: '?intent=conversation' })
  t.equal(bad.status, 400)
  t.match(bad.body.error, /intent must be "transcription"/)
})

t.test('a frame over realtime.maxFrameBytes closes the session with 1009', async (t) => {
  const app = await build(t, { realtime: { maxFrameBytes: 4096 } })
  const port = await listen(t, app)
  const client = await openRealtime(t, port)
  await client.next('session.created')
  client.send({ type: 'input_audio_buffer.append', audio: silence(100).toString('base64') })
  const closed = await client.closed
  t.equal(closed.code, 1009)
  // Others are not disturbed.
  const next = await openRealtime(t, port)
  t.ok(await next.next('session.created'))
})

t.test('10 sessions at once over realtime.maxSessions 3: 3 work, the rest are refused clearly', async (t) => {
  const app = await build(t, { realtime: { maxSessions: 3 } })
  const port = await listen(t, app)
  type Outcome = { ok: true; client: Awaited<ReturnType<typeof openRealtime>> } | { ok: false; how: string }
  const attempt = async (): Promise<Outcome> => {
    const client = await openRealtime(t, port).catch((err: Error) => err)
    if (client instanceof Error) return { ok: false, how: client.message }
    const first = await client
      .waitFor((e) => e.type === 'session.created' || e.type === 'error')
      .catch(() => null)
    if (first?.type === 'session.created') return { ok: true, client }
    const closed = await client.closed
    return { ok: false, how: `${closed.code} ${first?.error?.code}` }
  }
  const sessions = await Promise.all(Array.from({ length: 10 }, attempt))
  const working = sessions.filter((s) => s.ok)
  t.equal(working.length, 3, 'three sessions work')
  for (const s of sessions) {
    if (!s.ok) t.match(s.how, /^(Unexpected server response: 503|1013 too_many_sessions)$/, 'a clear refusal')
  }
  const refused = await refusedHandshake(port)
  t.equal(refused.status, 503, 'while three are open, the handshake is refused')
  t.equal(refused.body.code, 'TOO_MANY_SESSIONS')
  for (const s of working) {
    if (!s.ok) continue
    s.client.appendPcm(pcmOf(path.join(audioFixturesDir, 'goforward.wav')))
    s.client.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { turn_detection: null } } },
    })
    s.client.send({ type: 'input_audio_buffer.commit' })
  }
  for (const s of working) {
    if (s.ok)
      t.match(
        (await s.client.next('conversation.item.input_audio_transcription.completed')).transcript,
        /^heard/,
      )
  }
})

t.test('a session that receives nothing for realtime.idleTimeoutMs: error event, then close', async (t) => {
  const app = await build(t, { realtime: { idleTimeoutMs: 1000 } })
  const port = await listen(t, app)
  const client = await openRealtime(t, port)
  await client.next('session.created')
  const closed = await client.closed
  t.equal(closed.code, 1000)
  t.match(closed.reason, /idle/)
  t.ok(client.ofType('error').length === 1, 'one error event before the close')
})

t.test(
  'without a VAD (vad.enabled false) the session opens with turn_detection null: the client commits',
  async (t) => {
    const app = await build(t, { vad: { enabled: false } })
    const port = await listen(t, app)
    const client = await openRealtime(t, port)
    const created = await client.next('session.created')
    t.equal(created.session.audio.input.turn_detection, null, 'session.created says the client commits')
    client.appendPcm(pcmOf(path.join(audioFixturesDir, 'goforward.wav')))
    client.send({ type: 'input_audio_buffer.commit' })
    const committed = await client.next('input_audio_buffer.committed')
    const completed = await client.waitFor(
      (e) =>
        e.type === 'conversation.item.input_audio_transcription.completed' && e.item_id === committed.item_id,
    )
    t.type(completed.transcript, 'string', 'the item is transcribed')
    // Asking for server_vad now is refused (no detector) and the session goes on.
    client.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            turn_detection: {
              type: 'server_vad',
              threshold: 0.5,
              prefix_padding_ms: 300,
              silence_duration_ms: 500,
            },
          },
        },
      },
    })
    const error = await client.next('error')
    t.match(
      error.error.message,
      /silero-vad|voice activity/i,
      'server_vad without a detector is an error event',
    )
  },
)
