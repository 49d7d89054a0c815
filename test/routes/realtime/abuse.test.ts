/**
 * /v1/realtime against hostile clients (issue 28 items 2, 4, 8, 11), over real loopback WebSockets on the
 * fixture engine and the real Silero VAD: a noise flood is closed with 1008, a client that stops reading is
 * dropped with what is queued for it bounded, event ids are capped, thresholds the VAD cannot take are
 * refused, and frames that are not events are logged at debug and end a connection that keeps sending them;
 * a burst of frames is handled one frame per turn of the event loop.
 */
import { randomBytes } from 'node:crypto'
import type { Socket } from 'node:net'
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { listen } from '../../helpers/http.ts'
import { logCapture } from '../../helpers/log-capture.ts'
import { openRealtime } from './realtime-client.ts'

t.test('a flood of noise faster than it can be processed gets audio_too_fast and close 1008', async (t) => {
  const app = await build(t, { realtime: { maxQueuedAudioSeconds: 2 } })
  const port = await listen(t, app)
  const client = await openRealtime(t, port)
  await client.next('session.created')
  // 60 s of white noise at 24 kHz, one second an append, sent at once
  for (let i = 0; i < 60; i++) {
    client.send({ type: 'input_audio_buffer.append', audio: randomBytes(48_000).toString('base64') })
  }
  const closed = await client.closed
  t.same(closed, { code: 1008, reason: 'audio too fast' })
  const error = client.ofType('error')[0]
  t.equal(error?.error.code, 'audio_too_fast')
  t.match(error?.error.message, /realtime\.maxQueuedAudioSeconds/)
})

t.test('a burst of frames is taken one per turn of the event loop, other requests between', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const client = await openRealtime(t, port)
  await client.next('session.created')
  // Before, every frame read from the socket (libuv reads up to 32 × 64 KB a turn) was handled at once:
  // a client sending as fast as it could kept every other request waiting (issue 28 items 1–2).
  const frames = 1000
  let turns = 0
  let counting = true
  const spin = () => {
    if (!counting) return
    turns++
    setImmediate(spin)
  }
  setImmediate(spin)
  for (let i = 0; i < frames; i++) client.send({ type: 'input_audio_buffer.clear' })
  await client.waitFor(() => client.ofType('input_audio_buffer.cleared').length >= frames)
  counting = false
  t.ok(turns >= frames, `the event loop turned ${turns} times while ${frames} frames were handled`)
})

t.test(
  'a client that stops reading is dropped once realtime.maxSendQueueBytes is queued for it',
  async (t) => {
    const bound = 65_536
    const app = await build(t, { realtime: { maxSendQueueBytes: bound } })
    const port = await listen(t, app)
    // the server's end of the connection: what it queues for the client is its writable length
    let server: Socket | undefined
    let maxQueued = 0
    app.server.on('upgrade', (_request, socket: Socket) => {
      server = socket
      const write = socket.write.bind(socket) as (...args: unknown[]) => boolean
      socket.write = ((...args: unknown[]) => {
        const flushed = write(...args)
        maxQueued = Math.max(maxQueued, socket.writableLength)
        return flushed
      }) as Socket['write']
    })
    const client = await openRealtime(t, port)
    await client.next('session.created')
    client.socket.pause() // reads nothing more: the server's events pile up
    // each update is answered with a session.updated of ~4.5 kB (the prompt quoted back)
    const update = {
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { transcription: { prompt: 'p'.repeat(4000) } } } },
    } as const
    let sent = 0
    while (server && !server.destroyed && sent < 20_000) {
      for (let i = 0; i < 50; i++) client.send(update)
      sent += 50
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    t.ok(server?.destroyed, `dropped after ${sent} updates`)
    t.ok(maxQueued > 0, 'events were queued for the client')
    t.ok(maxQueued <= bound, `the server never queued more than the bound (${maxQueued} bytes at most)`)
    for (let i = 0; i < 200 && app.dictum.live.openSessions > 0; i++)
      await new Promise((r) => setTimeout(r, 10))
    t.equal(app.dictum.live.openSessions, 0, 'its live session is closed')
  },
)

t.test('an event_id over 512 characters is refused and never quoted back', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const client = await openRealtime(t, port)
  await client.next('session.created')
  const long = 'x'.repeat(513)
  client.sendRaw(JSON.stringify({ type: 'input_audio_buffer.clear', event_id: long }))
  const error = await client.next('error')
  t.match(error.error, { code: 'invalid_value', param: 'event_id', event_id: null })
  t.notOk(
    client.raw.some((text) => text.includes(long)),
    'not echoed',
  )
  client.sendRaw(JSON.stringify({ type: 'input_audio_buffer.clear', event_id: 'x'.repeat(512) }))
  await client.next('input_audio_buffer.cleared')
})

t.test('turn_detection.threshold 1 (which the VAD cannot take) is refused with an error event', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const client = await openRealtime(t, port)
  await client.next('session.created')
  client.send({
    type: 'session.update',
    session: {
      type: 'transcription',
      audio: { input: { turn_detection: { type: 'server_vad', threshold: 1 } } },
    },
  })
  const error = await client.next('error')
  t.match(error.error, {
    code: 'invalid_value',
    param: 'session.audio.input.turn_detection.threshold',
    message: /above 0.01 and below 1/,
  })
  t.equal(client.ofType('session.updated').length, 0, 'nothing applied')
})

t.test(
  'frames that are not events: logged at debug, a connection that keeps sending them is closed',
  async (t) => {
    const { logger, lines } = logCapture('debug')
    const app = await build(t, {}, { logger })
    const port = await listen(t, app)
    t.test(
      'a frame ws refuses (bad UTF-8) ends its connection, logged at debug without a stack',
      async (t) => {
        const client = await openRealtime(t, port)
        await client.next('session.created')
        client.sendRaw(Buffer.from([0xff, 0xfe, 0xfd]), false)
        const closed = await client.closed
        t.equal(closed.code, 1007)
        const refused = lines.filter((l) => l.msg === 'realtime frame refused: connection closed')
        t.equal(refused.length, 1)
        t.match(refused[0], { level: 20, refusedFrames: 1 })
        t.equal(lines.filter((l) => (l.level as number) >= 50).length, 0, 'nothing at error level')
        t.notOk(
          lines.some((l) => JSON.stringify(l).includes('    at ')),
          'no stack trace',
        )
      },
    )
    t.test('101 binary frames: 100 error events, then close 1008', async (t) => {
      const client = await openRealtime(t, port)
      await client.next('session.created')
      for (let i = 0; i < 101; i++) client.sendRaw(Buffer.from([1, 2, 3]), true)
      const closed = await client.closed
      t.same(closed, { code: 1008, reason: 'too many invalid frames' })
      t.equal(client.ofType('error').length, 101)
    })
  },
)
