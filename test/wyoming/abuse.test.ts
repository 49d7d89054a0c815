/**
 * The Wyoming server against hostile clients (issue 28, items 4 and 5), through `startServer` on real TCP:
 * a client that sends and never reads gets no more than a bounded backlog of answers (reading it stops) and
 * its memory is let go when it leaves; oversized header lines and data sections are refused; with
 * `api.token` set the server does not start unless `wyoming.allowWithoutToken`; connections are capped per
 * client address and in total; a connection that only pings is closed after `wyoming.idleTimeoutMs`.
 */
import net from 'node:net'
import t, { type Test } from 'tap'
import { MAX_UNREAD_BYTES } from '../../wyoming/connection.ts'
import { MAX_JSON_BYTES } from '../../wyoming/framing.ts'
import { clipPcm } from '../live/helpers.ts'
import { transcribe, WyomingClient } from './client.ts'
import { serve } from './serve.ts'

const GO = clipPcm('goforward.wav')
const MONO16 = { rate: 16000, width: 2, channels: 1 }

async function connect(t: Test, port: number, localAddress?: string) {
  const client = await WyomingClient.connect(port, '127.0.0.1', localAddress)
  t.teardown(() => client.close())
  return client
}

async function until(what: string, done: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A socket that writes and never reads what it is sent. */
function deafClient(t: Test, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      socket.pause()
      resolve(socket)
    })
    socket.once('error', reject)
    t.teardown(() => socket.destroy())
  })
}

/**
 * Writes `count` events, waiting for the socket to take each batch; stops when the peer stops taking them
 * (no drain for a while): what was sent by then, in bytes.
 */
async function writeUntilStalled(socket: net.Socket, event: Buffer, count: number): Promise<number> {
  let sent = 0
  for (let i = 0; i < count; i++) {
    sent += event.length
    if (socket.write(event)) continue
    const drained = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 3000)
      socket.once('drain', () => {
        clearTimeout(timer)
        resolve(true)
      })
    })
    if (!drained) return sent - socket.writableLength
  }
  return sent - socket.writableLength
}

t.test('a client that never reads: its answers stay bounded, and are let go when it leaves', async (t) => {
  const { server, port } = await serve(t, {
    realtime: { idleTimeoutMs: 600_000 },
    wyoming: { enabled: true, port: 0, idleTimeoutMs: 600_000 },
  })
  const deaf = await deafClient(t, port)
  // Each ping is answered by a pong echoing its 60 KB text: 1,000 of them would be 60 MB of answers.
  const text = 'x'.repeat(60_000)
  const ping = Buffer.from(`${JSON.stringify({ type: 'ping', data: { text } })}\n`)
  const total = ping.length * 1000
  const taken = await writeUntilStalled(deaf, ping, 1000)
  t.ok(taken < total, `the server stopped reading: it took ${taken} of ${total} bytes`)
  t.ok(
    server.wyoming.unreadBytes <= MAX_UNREAD_BYTES,
    `unread answers are bounded: ${server.wyoming.unreadBytes} bytes`,
  )

  deaf.destroy()
  await until('the connection is let go', () => server.wyoming.connections === 0)
  t.equal(server.wyoming.unreadBytes, 0, 'nothing is held for it')
  const other = await connect(t, port)
  other.send('ping', { text: 'hello' })
  t.match(await other.next(), { type: 'pong', data: { text: 'hello' } }, 'others are served')
})

t.test('header lines and data sections are bounded on their own, below the event bound', async (t) => {
  const { port } = await serve(t)
  const big = 'y'.repeat(MAX_JSON_BYTES)
  const cases: Array<[string, string, RegExp]> = [
    ['a header line', `${JSON.stringify({ type: 'ping', data: { text: big } })}\n`, /header line is longer/],
    [
      'a data section',
      `{"type":"ping","data_length":${MAX_JSON_BYTES + 20}}\n${JSON.stringify({ text: big })}`,
      /data is longer than 65536 bytes/,
    ],
  ]
  for (const [name, bytes, message] of cases) {
    const client = await connect(t, port)
    client.raw(bytes)
    t.match(await client.next(), { type: 'error', data: { code: 'INVALID_REQUEST', text: message } }, name)
    await client.closedByServer()
  }
  // Audio is the payload: up to realtime.maxFrameBytes (1 MB) in one chunk.
  const client = await connect(t, port)
  const events = await transcribe(client, GO, MONO16, { chunkBytes: GO.length })
  t.match(events.find((e) => e.type === 'transcript')?.data, { text: `heard ${GO.length / 2} samples` })
})

t.test('with api.token set, Wyoming does not start unless wyoming.allowWithoutToken', async (t) => {
  const token = 'wyoming-test-token'
  const refused = await serve(t, { api: { port: 0, token } })
  t.equal(refused.server.wyoming.address, null, 'not listening')
  const line = refused.lines.find((l) => l.msg === 'the Wyoming server is not started')
  t.match(line, { level: 40, reason: /api\.token is set.*wyoming\.allowWithoutToken/ }, 'the log says why')
  t.notOk(JSON.stringify(refused.lines).includes(token), 'the token is not logged')
  const engines = await refused.server.app.inject({
    method: 'GET',
    url: '/v1/engines',
    headers: { authorization: `Bearer ${token}` },
  })
  t.match(
    engines.json().wyoming,
    { state: 'refused', reason: /wyoming\.allowWithoutToken/ },
    'so does the API',
  )

  const allowed = await serve(t, {
    api: { port: 0, token },
    wyoming: { enabled: true, port: 0, allowWithoutToken: true },
  })
  t.ok(allowed.port > 0, 'allowWithoutToken: listening')
  const client = await connect(t, allowed.port)
  client.send('ping')
  t.equal((await client.next())?.type, 'pong')
  const listed = await allowed.server.app.inject({
    method: 'GET',
    url: '/v1/engines',
    headers: { authorization: `Bearer ${token}` },
  })
  t.same(listed.json().wyoming, { state: 'enabled', reason: null })
})

t.test('connections are capped per client address and in total', async (t) => {
  const { server, port } = await serve(t, {
    wyoming: { enabled: true, port: 0, maxConnections: 3, maxConnectionsPerClient: 2 },
  })
  const answers = async (client: WyomingClient) => {
    client.send('ping')
    return (await client.next())?.type
  }
  const first = await connect(t, port)
  const second = await connect(t, port)
  t.equal(await answers(first), 'pong')
  t.equal(await answers(second), 'pong')
  const third = await connect(t, port)
  t.match(
    await third.next(),
    { type: 'error', data: { code: 'TOO_MANY_CONNECTIONS', text: /wyoming\.maxConnectionsPerClient/ } },
    'a third from the same address is refused',
  )
  await third.closedByServer()
  const elsewhere = await connect(t, port, '127.0.0.2')
  t.equal(await answers(elsewhere), 'pong', 'another address is served')
  const fourth = await connect(t, port, '127.0.0.3')
  t.match(
    await fourth.next(),
    { type: 'error', data: { code: 'TOO_MANY_CONNECTIONS', text: /wyoming\.maxConnections\b/ } },
    'past the total, refused',
  )
  await fourth.closedByServer()
  first.close()
  await until('the closed connection is let go', () => server.wyoming.connections === 2)
  const again = await connect(t, port)
  t.equal(await answers(again), 'pong', 'a place again once one closed')
})

t.test('a connection that only pings is closed after wyoming.idleTimeoutMs; audio keeps it', async (t) => {
  const { port } = await serve(t, { wyoming: { enabled: true, port: 0, idleTimeoutMs: 3000 } })
  const pinger = await connect(t, port)
  const pings = setInterval(() => pinger.send('ping'), 500)
  t.teardown(() => clearInterval(pings))
  // Forty pongs are over ten times the idle timeout's worth of pings.
  let event = await pinger.next()
  for (let pongs = 0; event?.type === 'pong' && pongs < 40; pongs++) event = await pinger.next()
  clearInterval(pings)
  t.match(event, { type: 'error', data: { code: 'SESSION_IDLE_TIMEOUT', text: /no audio/ } })
  await pinger.closedByServer()

  // A stream whose audio takes longer than the idle timeout, in chunks closer together than it.
  const speaker = await connect(t, port)
  speaker.send('audio-start', MONO16)
  const chunk = 3200
  for (let at = 0; at < 12 * chunk; at += chunk) {
    speaker.send('audio-chunk', MONO16, GO.subarray(at, at + chunk))
    await new Promise((resolve) => setTimeout(resolve, 300))
  }
  speaker.send('audio-stop')
  const events = await speaker.until('transcript-stop')
  t.match(events.find((e) => e.type === 'transcript')?.data, { text: `heard ${6 * chunk} samples` })
})
