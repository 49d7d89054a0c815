/**
 * dictum's /v1/realtime driven by OpenAI's own realtime client (`OpenAIRealtimeWS` of the openai 7.x package),
 * with the session fields in the SDK's own shape: a GA transcription session on `gpt-live-transcribe` with
 * `keywords` and `include` logprobs, a repo clip appended and committed, its transcript and logprobs received.
 *
 * The SDK only opens `wss:` URLs (it rewrites the base URL's scheme and refuses a custom `ws:` one, since it
 * sends the API key), so the test puts a TLS-terminating proxy with a throwaway self-signed certificate in front
 * of dictum's plain listener, as a user would put a reverse proxy with TLS in front of it.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import tls from 'node:tls'
import OpenAI from 'openai'
import { OpenAIRealtimeWS } from 'openai/realtime/ws'
import type { RealtimeServerEvent } from 'openai/resources/realtime/realtime'
import t, { type Test } from 'tap'
import { build, tempDir } from '../../helpers/build.ts'
import { listen } from '../../helpers/http.ts'
import { clipPcmAt24k } from '../../live/helpers.ts'

const installed = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')
const skip = installed ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)'
/** pocketsphinx says "counseled" wrong on this clip without help (test/engines/pocketsphinx/stream.test.ts). */
const COUNSELLED = 'librispeech-1089-134686-0001.wav'

/** A self-signed certificate for 127.0.0.1, made with openssl in a temp dir. */
function selfSignedCert(t: Test): { key: Buffer; cert: Buffer } {
  const dir = tempDir(t, 'dictum-tls-')
  const key = path.join(dir, 'key.pem')
  const cert = path.join(dir, 'cert.pem')
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
      ...['-keyout', key, '-out', cert, '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
    ],
    { stdio: 'ignore' },
  )
  return { key: readFileSync(key), cert: readFileSync(cert) }
}

/** A TLS listener on 127.0.0.1 piping each connection to dictum's plain port; closed at the end of `t`. */
async function tlsProxy(t: Test, port: number, credentials: { key: Buffer; cert: Buffer }): Promise<number> {
  const sockets = new Set<net.Socket>()
  const server = tls.createServer(credentials, (client) => {
    const upstream = net.connect(port, '127.0.0.1')
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('error', () => socket.destroy())
      socket.on('close', () => sockets.delete(socket))
    }
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  })
  return (server.address() as net.AddressInfo).port
}

/**
 * dictum with pocketsphinx behind the TLS proxy, one for the file (each subtest opens its own session on
 * it): one model load and one certificate.
 */
let service: Promise<{ port: number; credentials: { key: Buffer; cert: Buffer } }> | undefined
function tlsService() {
  service ??= (async () => {
    const app = await build(t, { speech: { engine: 'pocketsphinx' } })
    const credentials = selfSignedCert(t)
    return { port: await tlsProxy(t, await listen(t, app), credentials), credentials }
  })()
  return service
}

/** The SDK's realtime client on a transcription session, every server event kept in order. */
async function sdkSession(t: Test) {
  const { port, credentials } = await tlsService()
  const openai = new OpenAI({ apiKey: 'sk-unused-by-dictum', baseURL: `https://127.0.0.1:${port}/v1` })
  const rt = new OpenAIRealtimeWS({ intent: 'transcription', options: { ca: credentials.cert } }, openai)
  const events: RealtimeServerEvent[] = []
  const waiters: Array<() => void> = []
  rt.on('event', (event) => {
    events.push(event)
    for (const wake of waiters.splice(0)) wake()
  })
  // error events reach 'event' too; the SDK also raises them here and wants a listener
  rt.on('error', () => {})
  t.teardown(() => rt.close())
  /** The first event from index `from` on that `match`es. */
  async function waitFor<E extends RealtimeServerEvent>(match: (e: RealtimeServerEvent) => e is E, from = 0) {
    for (;;) {
      const found = events.slice(from).find(match)
      if (found) return found
      await new Promise<void>((resolve) => waiters.push(resolve))
    }
  }
  return { rt, url: rt.url, events, waitFor }
}

const isType =
  <K extends RealtimeServerEvent['type']>(...types: K[]) =>
  (e: RealtimeServerEvent): e is Extract<RealtimeServerEvent, { type: K }> =>
    (types as string[]).includes(e.type)

t.test(
  'the SDK client: keywords and logprobs on gpt-live-transcribe, the transcript back',
  { skip },
  async (t) => {
    const { rt, url, events, waitFor } = await sdkSession(t)
    t.equal(url.href, `wss://${url.host}/v1/realtime?intent=transcription`, 'the URL the SDK built')
    await waitFor(isType('session.created'))

    let from = events.length
    rt.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        include: ['item.input_audio_transcription.logprobs'],
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            turn_detection: null,
            transcription: { model: 'gpt-live-transcribe', keywords: ['counselled'] },
          },
        },
      },
    })
    const updated = await waitFor(isType('session.updated', 'error'), from)
    if (updated.type !== 'session.updated')
      throw new Error(`session.update refused: ${JSON.stringify(updated)}`)
    t.ok(updated.session.type === 'transcription', 'a transcription session')
    if (updated.session.type === 'transcription') {
      t.equal(updated.session.audio?.input?.transcription?.model, 'gpt-live-transcribe', 'the model is taken')
      t.same(updated.session.audio?.input?.transcription?.keywords, ['counselled'], 'the keywords are shown')
      t.same(updated.session.include, ['item.input_audio_transcription.logprobs'], 'include is shown')
    }

    from = events.length
    rt.send({ type: 'input_audio_buffer.append', audio: clipPcmAt24k(COUNSELLED).toString('base64') })
    rt.send({ type: 'input_audio_buffer.commit' })
    const committed = await waitFor(isType('input_audio_buffer.committed'), from)
    const done = await waitFor(
      (
        e,
      ): e is Extract<
        RealtimeServerEvent,
        { type: 'conversation.item.input_audio_transcription.completed' }
      > =>
        (e.type === 'conversation.item.input_audio_transcription.completed' ||
          e.type === 'conversation.item.input_audio_transcription.failed') &&
        e.item_id === committed.item_id,
      from,
    )
    t.equal(done.type, 'conversation.item.input_audio_transcription.completed', 'the item completed')
    t.match(done.transcript, /\bcounselled\b/, `the keyword in the transcript: "${done.transcript}"`)
    const logprobs = done.logprobs ?? []
    t.ok(logprobs.length > 0, 'logprobs came with it')
    t.equal(logprobs.map((l) => l.token).join(''), done.transcript, 'their tokens spell the transcript')
    for (const { logprob } of logprobs) t.ok(logprob <= 0, `a log probability: ${logprob}`)
  },
)

t.test('the SDK client: a keyword holding "<" is answered with an error event', { skip }, async (t) => {
  const { rt, events, waitFor } = await sdkSession(t)
  await waitFor(isType('session.created'))
  const from = events.length
  rt.send({
    type: 'session.update',
    session: {
      type: 'transcription',
      audio: {
        input: { transcription: { model: 'gpt-live-transcribe', keywords: ['fine', '<b>bold</b>'] } },
      },
    },
  })
  const answer = await waitFor(isType('session.updated', 'error'), from)
  t.equal(answer.type, 'error', 'refused')
  if (answer.type === 'error') {
    t.equal(answer.error.param, 'session.audio.input.transcription.keywords[1]', 'the entry is named')
    t.notMatch(answer.error.message, /bold/, 'and not quoted')
  }
})
