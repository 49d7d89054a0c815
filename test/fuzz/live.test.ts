/**
 * Fuzzes the live surfaces (issue 28): realtime client events on `/v1/realtime` WebSockets and Wyoming events
 * on raw TCP, valid and not (live-events.ts), at a bounded rate, against the service as `dictum serve` runs
 * it (fixture engines). Asserts: every server event is well-formed; no error is an internal one (`INTERNAL`,
 * a realtime `server_error` outside the documented busy/unavailable ones, close code 1011); the process
 * does not crash; and after the run health answers, and a new realtime session and a new Wyoming stream
 * each give their transcript.
 *
 * Seeded (`DICTUM_FUZZ_SEED` replays); bounded: `DICTUM_FUZZ_LIVE_EVENTS` (default 3000) events or
 * `DICTUM_FUZZ_LIVE_SECONDS` (default 20) of sending, whichever ends first, at most ~100 events a second on
 * each of 3 realtime and 3 Wyoming connections.
 */
import t from 'tap'
import { isErrorCode } from '../../errors/catalogue.ts'
import { rawRequest } from '../helpers/http.ts'
import { clipPcm } from '../live/helpers.ts'
import { openRealtime, type RealtimeTestClient } from '../routes/realtime/realtime-client.ts'
import { transcribe, WyomingClient } from '../wyoming/client.ts'
import { serve } from '../wyoming/serve.ts'
import { realtimeFrame, wyomingFrame } from './live-events.ts'
import { fuzzSeed, Prng } from './prng.ts'

const EVENTS = Number(process.env.DICTUM_FUZZ_LIVE_EVENTS ?? 3000)
const SECONDS = Number(process.env.DICTUM_FUZZ_LIVE_SECONDS ?? 20)
const CONNECTIONS = 3
/** Pause between two events of one connection: the rate bound. */
const PAUSE_MS = 10
/** Catalogue errors of 5xx status the live docs give for a busy or missing engine or a full service. */
const DOCUMENTED_5XX = new Set([
  'TOO_MANY_SESSIONS',
  'TOO_MANY_CONNECTIONS',
  'ENGINE_BUSY',
  'ENGINE_UNAVAILABLE',
  'ENGINE_NOT_FOUND',
  'ENGINE_LOAD_FAILED',
  'MODEL_NOT_INSTALLED',
])

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('fuzzed realtime and Wyoming events: no internal error, no crash, healthy after', async (t) => {
  const seed = fuzzSeed()
  t.comment(`fuzz seed ${seed} (replay: DICTUM_FUZZ_SEED=${seed})`)
  const { server, port: wyomingPort } = await serve(t, { realtime: { maxSessions: 16 } })
  const port = server.listener.address!.port
  const failures: string[] = []
  const counts = { realtime: 0, wyoming: 0, realtimeReconnects: 0, wyomingReconnects: 0 }
  const closeCodes = new Map<number, number>()
  const errorCodes = new Map<string, number>()
  let sent = 0
  const deadline = performance.now() + SECONDS * 1000
  const going = () => sent < EVENTS && performance.now() < deadline

  const checkRealtime = (client: RealtimeTestClient, from: number) => {
    for (const event of client.events.slice(from)) {
      if (typeof event.type !== 'string')
        failures.push(`realtime event without a type: ${JSON.stringify(event)}`)
      if (event.type !== 'error') continue
      const code = String(event.error?.code ?? '')
      errorCodes.set(`realtime ${code}`, (errorCodes.get(`realtime ${code}`) ?? 0) + 1)
      const documented = DOCUMENTED_5XX.has(code.toUpperCase())
      if (code === 'internal' || (event.error?.type === 'server_error' && !documented))
        failures.push(`realtime internal error: ${JSON.stringify(event.error).slice(0, 300)}`)
    }
    return client.events.length
  }

  const realtimeWorker = async (rng: Prng) => {
    while (going()) {
      const client = await openRealtime(t, port)
      let seen = 0
      let closed: { code: number } | null = null
      void client.closed.then((c) => {
        closed = c
      })
      while (going() && closed === null) {
        const frame = realtimeFrame(rng)
        client.sendRaw(frame.data, frame.binary)
        sent++
        counts.realtime++
        await sleep(PAUSE_MS)
        seen = checkRealtime(client, seen)
      }
      client.socket.close()
      const { code } = await client.closed
      checkRealtime(client, seen)
      closeCodes.set(code, (closeCodes.get(code) ?? 0) + 1)
      if (code === 1011) failures.push('realtime closed with 1011 (internal error)')
      if (going()) counts.realtimeReconnects++
    }
  }

  const checkWyoming = (client: WyomingClient) => {
    for (const event of client.take()) {
      if (event.type !== 'error') continue
      const code = String(event.data.code)
      errorCodes.set(`wyoming ${code}`, (errorCodes.get(`wyoming ${code}`) ?? 0) + 1)
      if (!isErrorCode(code)) failures.push(`Wyoming error code not in the catalogue: ${code}`)
      if (['INTERNAL', 'ENGINE_CRASHED', 'ENGINE_FAILED'].includes(code))
        failures.push(`Wyoming internal error: ${JSON.stringify(event.data).slice(0, 300)}`)
    }
  }

  const wyomingWorker = async (rng: Prng) => {
    while (going()) {
      const client = await WyomingClient.connect(wyomingPort)
      t.teardown(() => client.close())
      let closing = false
      while (going() && !client.closed && !closing) {
        const frame = wyomingFrame(rng)
        client.raw(frame.bytes)
        closing = frame.closes
        sent++
        counts.wyoming++
        await sleep(PAUSE_MS)
        checkWyoming(client)
      }
      if (closing) await client.closedByServer(30_000)
      else client.close()
      checkWyoming(client)
      if (going()) counts.wyomingReconnects++
    }
  }

  const base = new Prng(seed)
  await Promise.all([
    ...Array.from({ length: CONNECTIONS }, () => realtimeWorker(new Prng(base.int(0, 0xffffffff)))),
    ...Array.from({ length: CONNECTIONS }, () => wyomingWorker(new Prng(base.int(0, 0xffffffff)))),
  ])
  t.comment(`${sent} events: ${JSON.stringify(counts)}`)
  t.comment(`realtime close codes: ${[...closeCodes].map(([c, n]) => `${c}×${n}`).join(' ')}`)
  t.comment(`error codes: ${[...errorCodes].map(([c, n]) => `${c}×${n}`).join(' ')}`)
  t.ok(counts.realtime >= 20 && counts.wyoming >= 20, 'both surfaces got events (a busy machine sends fewer)')
  t.same(failures.slice(0, 20), [], `every answer is sound (seed ${seed}; ${failures.length} failures)`)

  // The service is whole: health, a realtime transcript, a Wyoming transcript.
  t.equal((await rawRequest({ port, path: '/v1/health' })).status, 200, 'health answers after the run')
  const GO = clipPcm('goforward.wav')
  const realtime = await openRealtime(t, port)
  await realtime.next('session.created')
  realtime.sendRaw(
    JSON.stringify({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: { input: { format: { type: 'audio/pcm', rate: 16000 }, turn_detection: null } },
      },
    }),
  )
  await realtime.next('session.updated')
  realtime.sendRaw(JSON.stringify({ type: 'input_audio_buffer.append', audio: GO.toString('base64') }))
  realtime.sendRaw(JSON.stringify({ type: 'input_audio_buffer.commit' }))
  const completed = await realtime.next('conversation.item.input_audio_transcription.completed')
  t.equal(completed.transcript, `heard ${GO.length / 2} samples`, 'a new realtime session transcribes')
  const wyoming = await WyomingClient.connect(wyomingPort)
  t.teardown(() => wyoming.close())
  const events = await transcribe(wyoming, GO, { rate: 16000, width: 2, channels: 1 })
  t.equal(
    events.find((e) => e.type === 'transcript')?.data.text,
    `heard ${GO.length / 2} samples`,
    'a new Wyoming stream transcribes',
  )
})
