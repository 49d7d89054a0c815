/**
 * Live session behaviour around the items: history that cannot be written (another process holds the
 * database's lock) never ends a session; close() ends the open item as a commit would, close({cancel})
 * drops it; update() changes turn detection from the next item; a client flooding audio far faster than
 * the engine transcribes it is stopped. Fixture engines in this process, the real Silero VAD and SQLite.
 */
import path from 'node:path'
import t, { type Test } from 'tap'
import type { LiveSessionOptions } from '../../live/types.ts'
import { build, FIXTURES } from '../helpers/build.ts'
import { holdDatabaseLock } from '../helpers/database-lock.ts'
import { appendInChunks, clipPcm, EventLog, silencePcm } from './helpers.ts'

const STREAMING = path.join(FIXTURES, 'plugins/streaming-engine.ts')
const SLOW = path.join(FIXTURES, 'plugins/slow-engine.ts')
const COMMIT: LiveSessionOptions = { turnDetection: null, inputSampleRate: 16000 }
const VAD = { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 } as const

function streamingApp(t: Test, overrides: Record<string, unknown> = {}) {
  return build(t, { plugins: [STREAMING], speech: { engine: 'fixture-streaming-inline' }, ...overrides })
}

t.test(
  'history that cannot be stored: historyId null, the session goes on, the next item is stored',
  async (t) => {
    const app = await streamingApp(t, { history: { enabled: true } })
    const log = new EventLog()
    const session = await app.dictum.live.open({ ...COMMIT, history: { appName: 'Editor' } }, log.listener)
    const lock = await holdDatabaseLock(t, app.dictum.configStore.current.dataDir, 'EXCLUSIVE')
    await appendInChunks(session, clipPcm('cards-001.wav'), 50)
    session.commit()
    await log.until(() => log.ended() === 1)
    await lock.release()
    await appendInChunks(session, clipPcm('cards-002.wav'), 50)
    session.commit()
    await log.until(() => log.ended() === 2)
    await session.close()

    const [first, second] = log.of('completed')
    t.ok(first?.transcript, 'the first item has text')
    t.equal(first?.historyId, null, 'it could not be stored (the database was locked)')
    t.equal(log.of('error').length, 0, 'no error event')
    t.type(second?.historyId, 'string', 'the next item is stored')
    t.same(
      app.dictum.history.list(10).items.map((e) => [e.id, e.finalText, e.appName]),
      [[second?.historyId, second?.transcript, 'Editor']],
      'only it',
    )
  },
)

t.test('history is recorded only when asked for and history.enabled', async (t) => {
  const app = await streamingApp(t, { history: { enabled: false } })
  const log = new EventLog()
  const session = await app.dictum.live.open({ ...COMMIT, history: { appName: 'Editor' } }, log.listener)
  await appendInChunks(session, clipPcm('cards-001.wav'), 50)
  await session.close()
  t.equal(log.of('completed')[0]?.historyId, null)
  t.equal(app.dictum.history.list(10).count, 0)
})

t.test('close() ends the open item as a commit would; close({cancel}) drops it', async (t) => {
  const app = await streamingApp(t)
  const log = new EventLog()
  const session = await app.dictum.live.open(COMMIT, log.listener)
  await appendInChunks(session, clipPcm('cards-003.wav'), 50)
  await session.close()
  t.same(
    log.events.filter((e) => e.type === 'committed' || e.type === 'completed').map((e) => e.type),
    ['committed', 'completed'],
    'close() waited for the transcript',
  )
  t.ok(log.of('completed')[0]?.transcript)
  await session.close()
  t.equal(app.dictum.live.openSessions, 0)

  const dropped = new EventLog()
  const cancelled = await app.dictum.live.open(COMMIT, dropped.listener)
  await appendInChunks(cancelled, clipPcm('cards-003.wav'), 50)
  const before = dropped.events.length
  await cancelled.close({ cancel: true })
  t.equal(dropped.events.length, before, 'nothing reported after a cancel')
  t.notOk(dropped.events.some((e) => e.type === 'committed'))
  t.equal(app.dictum.live.openSessions, 0)
})

t.test('update() switches turn detection at the next item', async (t) => {
  const app = await streamingApp(t)
  const log = new EventLog()
  const session = await app.dictum.live.open(COMMIT, log.listener)
  await appendInChunks(session, clipPcm('cards-001.wav'), 50)
  session.update({ turnDetection: VAD })
  await appendInChunks(session, silencePcm(1000), 50)
  t.equal(log.of('speech_started').length, 0, 'the open item still waits for a commit')
  session.commit()
  await appendInChunks(
    session,
    Buffer.concat([clipPcm('cards-002.wav'), silencePcm(1000), clipPcm('cards-003.wav'), silencePcm(1000)]),
    50,
  )
  await log.until(() => log.ended() === 3)
  await session.close()
  t.equal(log.of('speech_started').length, 2, 'then the server VAD cuts the audio at its pauses')
  t.equal(log.of('committed').length, 3)
  t.equal(log.of('error').length, 0)
})

t.test('a client sending audio far faster than the engine transcribes it is stopped', async (t) => {
  // an engine that never answers in time; audio waiting to be processed is not what this test bounds
  const app = await build(t, {
    plugins: [SLOW],
    speech: { engine: 'fixture-slow', engines: { 'fixture-slow': { delayMs: 600_000 } } },
    realtime: { maxQueuedAudioSeconds: 1000 },
  })
  const log = new EventLog()
  const session = await app.dictum.live.open(COMMIT, log.listener)
  // 22 appends of 1 MiB (32.8 s each) in one go: items of 120 s pile up; the second waits behind the first,
  // past realtime.maxBacklogSeconds (30 s)
  const chunk = silencePcm(32768)
  for (let i = 0; i < 22; i++) session.append(chunk)
  // 720 s of audio is processed a slice per turn: minutes on a loaded machine, never a time bound here
  await log.until(() => log.of('error').length > 0, 600_000)
  const errors = log.of('error')
  t.equal(errors.length, 1)
  t.equal(errors[0]?.fatal, true)
  t.equal(errors[0]?.error.code, 'SESSION_BACKLOG')
  t.match(errors[0]?.error.message, /more than realtime\.maxBacklogSeconds \(30\); the session is closed/)
  t.equal(log.of('committed').length, 2, 'two items of 120 s committed, the second over the backlog')
  t.equal(log.of('failed').length, 2, 'each failed before the fatal error')
  for (let i = 0; i < 200 && app.dictum.live.openSessions > 0; i++)
    await new Promise((r) => setTimeout(r, 10))
  t.equal(app.dictum.live.openSessions, 0, 'the session is closed')
  t.notOk(
    log.events.some((e) => e.type === 'completed'),
    'nothing after the fatal error',
  )
})

t.test('a session keeps its engine through a config edit; the next session gets the new one', async (t) => {
  const app = await streamingApp(t)
  const { configStore, live } = app.dictum
  const log = new EventLog()
  const before = await live.open(COMMIT, log.listener)
  await configStore.update({
    ...configStore.current,
    speech: {
      ...configStore.current.speech,
      engines: { ...configStore.current.speech.engines, 'fixture-streaming-inline': { msPerWord: 50 } },
    },
  })
  const after = new EventLog()
  const session = await live.open(COMMIT, after.listener)
  const pcm = clipPcm('cards-002.wav')
  await appendInChunks(before, pcm, 50)
  await appendInChunks(session, pcm, 50)
  await Promise.all([before.close(), session.close()])
  const words = (events: EventLog) => events.of('completed')[0]!.transcript.split(' ').length
  t.ok(words(log) > 5, `the open session still hears a word per 100 ms (${words(log)} words)`)
  t.ok(
    Math.abs(words(after) - 2 * words(log)) <= 1,
    `the new session a word per 50 ms (${words(after)} words)`,
  )
})
