/**
 * A live session's audio is processed a slice per turn of the event loop (issue 28 item 2): other requests
 * are answered while a flood is converted, resampled and run through the VAD; a session whose unprocessed
 * audio passes realtime.maxQueuedAudioSeconds is closed; commits and updates still apply in order. The echo
 * fixture engine, the real Silero VAD, real HTTP for /v1/health.
 */
import t from 'tap'
import type { LiveSessionOptions } from '../../live/types.ts'
import { build } from '../helpers/build.ts'
import { listen } from '../helpers/http.ts'
import { clipPcmAt24k, EventLog, silencePcm } from './helpers.ts'

const SERVER_VAD: LiveSessionOptions = {
  turnDetection: { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 },
  inputSampleRate: 24000,
}

/** Appends `pcm` in one-second appends, all in this turn of the event loop (a client's burst). */
function burst(session: { append(pcm: Uint8Array): void }, pcm: Buffer): void {
  for (let at = 0; at < pcm.length; at += 48_000) session.append(pcm.subarray(at, at + 48_000))
}

t.test('/v1/health is answered while a burst of 24 s of speech is still being processed', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  const log = new EventLog()
  const session = await app.dictum.live.open(SERVER_VAD, log.listener)
  const speech = clipPcmAt24k('jfk.wav') // 11 s
  burst(session, Buffer.concat([speech, speech, silencePcm(2000, 24000)]))
  // Nothing is open after the trailing silence, so this commit is refused: that error event marks the moment
  // everything appended before it has been processed.
  session.commit()
  const processed = () => log.of('error').length > 0
  let answeredBefore = 0
  const statuses = new Set<number>()
  while (!processed()) {
    const response = await fetch(`http://127.0.0.1:${port}/v1/health`)
    statuses.add(response.status)
    if (!processed()) answeredBefore++
  }
  t.same([...statuses], [200])
  t.ok(answeredBefore >= 1, `health answered ${answeredBefore} times before the burst was processed`)
  await log.until(processed)
  t.equal(log.of('error')[0]?.error.extra?.reason, 'input_audio_buffer_commit_empty', 'the commit came last')
  const started = log.of('speech_started').length
  t.ok(started >= 2, `the speech was all heard (${started} items)`)
  t.equal(log.of('committed').length, started)
  await log.until(() => log.ended() === started)
  await session.close()
})

t.test(
  'more than realtime.maxQueuedAudioSeconds of unprocessed audio closes the session (AUDIO_TOO_FAST)',
  async (t) => {
    const app = await build(t, { realtime: { maxQueuedAudioSeconds: 5 } })
    const log = new EventLog()
    const session = await app.dictum.live.open(SERVER_VAD, log.listener)
    burst(session, silencePcm(4000, 24000))
    t.equal(log.of('error').length, 0, '4 s waiting is within the bound')
    burst(session, silencePcm(30_000, 24000))
    const [error] = log.of('error')
    t.equal(error?.fatal, true)
    t.equal(error?.error.code, 'AUDIO_TOO_FAST')
    t.match(
      error?.error.message,
      /more than 5 s of audio wait to be processed \(realtime.maxQueuedAudioSeconds\)/,
    )
    for (let i = 0; i < 200 && app.dictum.live.openSessions > 0; i++)
      await new Promise((r) => setTimeout(r, 10))
    t.equal(app.dictum.live.openSessions, 0, 'the session is closed, its queued audio dropped')
    t.equal(log.events.length, 1, 'nothing after the fatal error')
  },
)

t.test(
  'turn_detection thresholds the Silero VAD cannot take are refused, at open and at update',
  async (t) => {
    const app = await build(t)
    for (const threshold of [1, 0, 0.01]) {
      await t.rejects(
        app.dictum.live.open(
          { ...SERVER_VAD, turnDetection: { ...SERVER_VAD.turnDetection!, threshold } },
          () => {},
        ),
        {
          code: 'INVALID_REQUEST',
          message: /threshold must be a number above 0.01 and below 1 \(the range the Silero VAD takes\)/,
        },
        `threshold ${threshold}`,
      )
    }
    const log = new EventLog()
    const session = await app.dictum.live.open(SERVER_VAD, log.listener)
    session.update({ turnDetection: { ...SERVER_VAD.turnDetection!, threshold: 1 } })
    t.match(log.of('error')[0], {
      fatal: false,
      error: { code: 'INVALID_REQUEST', extra: { param: 'turn_detection' } },
    })
    // the session goes on with its detector: speech is still heard
    burst(session, Buffer.concat([clipPcmAt24k('jfk.wav'), silencePcm(2000, 24000)]))
    await log.until(() => log.of('committed').length > 0)
    await session.close()
  },
)
