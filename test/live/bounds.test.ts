/**
 * Live sessions are bounded (issue 13 item 6): realtime.maxSessions, the idle timeout, the longest item,
 * misuse that the session survives (odd bytes, over-long appends, empty commits) and input at 24 kHz.
 * The fixture engines run in this process; the server VAD is the real Silero model.
 */
import path from 'node:path'
import t from 'tap'
import { pcmToMono } from '../../audio/pcm-convert.ts'
import { pcm16Wav } from '../../audio/wav-encode.ts'
import { entryOf } from '../../errors/catalogue.ts'
import type { LiveSessions } from '../../live/service.ts'
import type { LiveSessionOptions } from '../../live/types.ts'
import { expectedText } from '../fixtures/plugins/streaming-engine.ts'
import { build, FIXTURES } from '../helpers/build.ts'
import { appendInChunks, clipPcm, clipPcmAt24k, EventLog, silencePcm } from './helpers.ts'

const STREAMING = path.join(FIXTURES, 'plugins/streaming-engine.ts')
const COMMIT: LiveSessionOptions = { turnDetection: null, inputSampleRate: 16000 }
const SERVER_VAD: LiveSessionOptions = {
  turnDetection: { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 },
  inputSampleRate: 16000,
}

function streamingApp(t: Parameters<typeof build>[0], overrides: Record<string, unknown> = {}) {
  return build(t, {
    plugins: [STREAMING],
    speech: { engine: 'fixture-streaming-inline' },
    ...overrides,
  })
}

const samplesOf = (pcm: Buffer) => pcmToMono(pcm, { sampleFormat: 's16', channels: 1, blockAlign: 2 })

t.test(
  'realtime.maxSessions: 10 sessions at once over a limit of 3 get 3 sessions and 7 clear refusals',
  async (t) => {
    const app = await streamingApp(t, { realtime: { maxSessions: 3 } })
    const { live } = app.dictum
    const opened = await Promise.allSettled(Array.from({ length: 10 }, () => live.open(COMMIT, () => {})))
    const sessions = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []))
    const refusals = opened.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []))
    t.equal(sessions.length, 3)
    t.equal(refusals.length, 7)
    for (const refusal of refusals) {
      t.match(refusal, {
        code: 'TOO_MANY_SESSIONS',
        statusCode: 503,
        message: 'Too many live sessions at once: 3 are open (realtime.maxSessions). Retry later.',
      })
    }
    t.equal(entryOf('TOO_MANY_SESSIONS')?.retryAfterSeconds, 5, 'a Retry-After for HTTP answers')
    t.equal(live.openSessions, 3)
    await sessions[0]!.close()
    t.equal(live.openSessions, 2, 'closing frees a place')
    const again = await live.open(COMMIT, () => {})
    t.equal(live.openSessions, 3, 'which the next session takes')
    await Promise.all([again, ...sessions].map((s) => s.close()))
    t.equal(live.openSessions, 0)
  },
)

t.test(
  'a session without audio for realtime.idleTimeoutMs ends with a fatal error and frees its place',
  async (t) => {
    const app = await streamingApp(t, { realtime: { idleTimeoutMs: 1000, maxSessions: 1 } })
    const log = new EventLog()
    const session = await app.dictum.live.open(COMMIT, log.listener)
    await appendInChunks(session, clipPcm('cards-001.wav'), 50)
    session.commit()
    await log.until(() => log.ended() === 1)
    const started = Date.now()
    await log.until(() => log.of('error').length === 1, 10_000)
    t.ok(Date.now() - started >= 900, 'not before the timeout')
    const [error] = log.of('error')
    t.equal(error?.fatal, true)
    t.equal(error?.error.code, 'SESSION_IDLE_TIMEOUT')
    t.equal(
      error?.error.message,
      'Live session idle: no audio or event for 1000 ms (realtime.idleTimeoutMs); the session is closed.',
    )
    await t.resolveMatch(
      (async () => {
        while (app.dictum.live.openSessions > 0) await new Promise((r) => setTimeout(r, 10))
        return app.dictum.live.openSessions
      })(),
      0,
      'the place is free',
    )
    const count = log.events.length
    session.append(clipPcm('cards-001.wav'))
    session.commit()
    await new Promise((r) => setTimeout(r, 100))
    t.equal(log.events.length, count, 'a closed session reports nothing more')
    const next = await app.dictum.live.open(COMMIT, () => {})
    await next.close()
  },
)

t.test(
  'audio the service has not got through yet is not idleness: no idle timeout while the turn detector holds it',
  async (t) => {
    const app = await streamingApp(t, { realtime: { idleTimeoutMs: 1000 } })
    const pool = (app.dictum.live as LiveSessions).turnDetectors
    // The turn detector's thread answers only when released: a machine so busy that the thread got no core.
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const acquire = pool.acquire.bind(pool)
    pool.acquire = (options) => {
      const detector = acquire(options)
      return {
        leadIn: detector.leadIn,
        cut: () => detector.cut(),
        accept: async (samples) => {
          await held
          return detector.accept(samples)
        },
      }
    }
    const log = new EventLog()
    const session = await app.dictum.live.open(SERVER_VAD, log.listener)
    session.append(clipPcm('cards-001.wav'))
    // Three idle timeouts' worth while the audio waits; timers run in the order they are due.
    await new Promise((resolve) => setTimeout(resolve, 3000))
    t.same(log.of('error'), [], 'no idle timeout while the service still works through the audio sent')
    release()
    await log.until(() => log.of('error').length === 1, 20_000)
    t.equal(log.of('error')[0]?.error.code, 'SESSION_IDLE_TIMEOUT', 'idle once the audio is through')
    t.ok(log.of('speech_started').length >= 1, 'the held audio was processed: its speech was heard')
    await session.close()
  },
)

t.test('misuse gives a non-fatal error and the session goes on', async (t) => {
  const app = await streamingApp(t, { realtime: { maxFrameBytes: 4096 } })
  const log = new EventLog()
  const session = await app.dictum.live.open(COMMIT, log.listener)
  session.commit()
  session.append(new Uint8Array(3))
  session.append(new Uint8Array(5000))
  const errors = log.of('error')
  t.same(
    errors.map((e) => [e.fatal, e.error.code, e.error.message]),
    [
      [
        false,
        'INVALID_REQUEST',
        'Invalid request: the input audio buffer is empty: append audio before committing.',
      ],
      [
        false,
        'INVALID_REQUEST',
        'Invalid request: the audio has an odd number of bytes (3): PCM16 takes 2 bytes a sample.',
      ],
      [
        false,
        'INVALID_REQUEST',
        'Invalid request: an append of 5000 bytes is more than realtime.maxFrameBytes (4096).',
      ],
    ],
  )
  t.equal(errors[0]?.error.extra?.reason, 'input_audio_buffer_commit_empty')
  const pcm = clipPcm('cards-002.wav')
  await appendInChunks(session, pcm, 100)
  session.commit()
  await log.until(() => log.ended() === 1)
  t.equal(
    log.of('completed')[0]?.transcript,
    expectedText(samplesOf(pcm), 100),
    'refused appends left no trace',
  )
  await session.close()
})

t.test(
  'realtime.maxUtteranceSeconds: speech going on is committed there and a new item starts',
  async (t) => {
    const app = await streamingApp(t, { realtime: { maxUtteranceSeconds: 1 } })
    t.test('client commits', async (t) => {
      const log = new EventLog()
      const session = await app.dictum.live.open(COMMIT, log.listener)
      const pcm = clipPcm('librispeech-1089-134686-0001.wav') // 3.28 s
      await appendInChunks(session, pcm, 60)
      t.equal(log.of('committed').length, 3, 'three items cut at 1 s before the commit')
      session.commit()
      await log.until(() => log.ended() === 4)
      await session.close()
      const completed = log.of('completed')
      t.same(
        completed.map((c) => [c.startSeconds, c.endSeconds]),
        [
          [0, 1],
          [1, 2],
          [2, 3],
          [3, pcm.length / 2 / 16000],
        ],
        'items of 1 s, back to back',
      )
      const all = samplesOf(pcm)
      t.same(
        completed.map((c) => c.transcript),
        completed.map((c) => expectedText(all.subarray(c.startSeconds * 16000, c.endSeconds * 16000), 100)),
        'each item holds exactly its audio',
      )
    })
    t.test('server VAD', async (t) => {
      const log = new EventLog()
      const session = await app.dictum.live.open(SERVER_VAD, log.listener)
      await appendInChunks(session, Buffer.concat([clipPcm('jfk.wav'), silencePcm(1000)]), 100)
      await log.until(() => log.ended() === log.of('committed').length && log.ended() > 0)
      await session.close()
      const completed = log.of('completed')
      t.ok(completed.length >= 5, `11 s of speech in items of at most 1 s (${completed.length})`)
      for (const c of completed)
        t.ok(c.endSeconds - c.startSeconds <= 1.0001, `${c.startSeconds}..${c.endSeconds}`)
      const started = log.of('speech_started').length
      t.equal(log.of('speech_stopped').length, started, 'each started item stopped')
      t.equal(log.of('committed').length, started)
    })
  },
)

t.test('24 kHz input is resampled to exactly the 16 kHz samples a 24 kHz file gives', async (t) => {
  const app = await build(t) // the fixture echo engine: "heard N samples"
  const pcm24 = clipPcmAt24k('goforward.wav')
  const log = new EventLog()
  const session = await app.dictum.live.open({ ...COMMIT, inputSampleRate: 24000 }, log.listener)
  await appendInChunks(session, pcm24, 40, 24000)
  session.commit()
  await log.until(() => log.ended() === 1)
  await session.close()
  const wav = pcm16Wav(pcm24, 24000)
  const file = await app.dictum.transcription.transcribe({ kind: 'bytes', data: wav })
  t.match(file.text, /^heard \d+ samples$/)
  t.equal(log.of('completed')[0]?.transcript, file.text, 'the same sample count as the file path')
  t.equal(log.of('completed')[0]?.endSeconds, file.sampleCount / 16000)
})

t.test('server_vad without a VAD model is refused at open; turn_detection null still works', async (t) => {
  const app = await streamingApp(t, { vad: { enabled: false } })
  await t.rejects(
    app.dictum.live.open(SERVER_VAD, () => {}),
    {
      code: 'MODEL_NOT_INSTALLED',
      message: /turn_detection server_vad needs the voice activity detector/,
    },
  )
  t.equal(app.dictum.live.openSessions, 0)
  const log = new EventLog()
  const session = await app.dictum.live.open(COMMIT, log.listener)
  session.update({ turnDetection: SERVER_VAD.turnDetection })
  t.match(log.of('error')[0], { fatal: false, error: { code: 'INVALID_REQUEST' } }, 'update refused too')
  await appendInChunks(session, clipPcm('cards-003.wav'), 50)
  session.commit()
  await log.until(() => log.ended() === 1)
  t.ok(log.of('completed')[0]?.transcript, 'the session goes on with client commits')
  await session.close()
})
