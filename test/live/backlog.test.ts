/**
 * The backlog of a live session is bounded in seconds (realtime.maxBacklogSeconds): committed audio waiting
 * behind the item being transcribed gives the client a warning at half the bound and ends the session past
 * it; every committed item gets its last event (`completed` or `failed`) however the session ends: a fatal
 * error, the client closing, dictum stopping. The fixture streaming engine runs in this process, its finish
 * held back (finishDelayMs) so that items wait for it.
 */
import t from 'tap'
import type { LiveSessionOptions } from '../../live/types.ts'
import { build } from '../helpers/build.ts'
import { appendInChunks, clipPcm, EventLog } from './helpers.ts'

const COMMIT: LiveSessionOptions = { turnDetection: null, inputSampleRate: 16000 }
const ENGINE = 'fixture-streaming-inline'

function slowApp(t: Parameters<typeof build>[0], maxBacklogSeconds: number) {
  return build(t, {
    plugins: [new URL('../fixtures/plugins/streaming-engine.ts', import.meta.url).pathname],
    speech: { engine: ENGINE, engines: { [ENGINE]: { finishDelayMs: 20_000 } } },
    realtime: { maxBacklogSeconds },
  })
}

/** Appends one clip (cards-001.wav, 1.1 s) and commits it. */
async function commitClip(session: Awaited<ReturnType<typeof startSession>>['session']) {
  await appendInChunks(session, clipPcm('cards-001.wav'), 100)
  session.commit()
}

async function startSession(t: Parameters<typeof build>[0], maxBacklogSeconds: number) {
  const app = await slowApp(t, maxBacklogSeconds)
  const log = new EventLog()
  const session = await app.dictum.live.open(COMMIT, log.listener)
  return { app, log, session }
}

t.test('a growing backlog: a warning at half of realtime.maxBacklogSeconds, then the end', async (t) => {
  const { app, log, session } = await startSession(t, 3)
  const clipSeconds = clipPcm('cards-001.wav').length / 2 / 16000
  await commitClip(session) // being transcribed: not waiting
  await commitClip(session) // 1.1 s waiting
  t.same(log.of('error'), [], 'under half of the bound: no word')
  await commitClip(session) // 2.2 s waiting: over half
  const [warning] = log.of('error')
  t.equal(warning?.fatal, false, 'a warning the session survives')
  t.equal(warning?.error.code, 'SESSION_BACKLOG')
  t.equal(warning?.error.extra?.maxBacklogSeconds, 3)
  t.equal(warning?.error.extra?.waitingSeconds, 2 * clipSeconds)
  t.match(warning?.error.message, /^Live session behind: 2\.2 s of committed audio wait for the engine/)
  await commitClip(session) // 3.3 s waiting: past the bound
  const errors = log.of('error')
  t.equal(errors.length, 2, 'warned once')
  t.equal(errors[1]?.fatal, true)
  t.equal(errors[1]?.error.code, 'SESSION_BACKLOG')
  const committed = log.of('committed').map((e) => e.itemId)
  t.equal(committed.length, 4)
  t.same(
    log.of('failed').map((e) => [e.itemId, e.error.code]),
    committed.map((id) => [id, 'SESSION_BACKLOG']),
    'each committed item failed, in order',
  )
  t.equal(log.events.at(-1)?.type, 'error', 'the fatal error is the last event')
  const count = log.events.length
  await commitClip(session)
  t.equal(log.events.length, count, 'nothing after it')
  while (app.dictum.live.openSessions > 0) await new Promise((r) => setTimeout(r, 10))
})

t.test('close({cancel: true}): every committed item fails with SESSION_CLOSED, in order', async (t) => {
  const { log, session } = await startSession(t, 60)
  await commitClip(session)
  await commitClip(session)
  await appendInChunks(session, clipPcm('cards-002.wav'), 100) // open, never committed
  await session.close({ cancel: true })
  const committed = log.of('committed').map((e) => e.itemId)
  t.equal(committed.length, 2)
  t.same(
    log.of('failed').map((e) => [e.itemId, e.error.code]),
    committed.map((id) => [id, 'SESSION_CLOSED']),
  )
  t.equal(log.ended(), 2, 'one last event per committed item, none for the open one')
})

t.test('dictum stopping: each session gets the last event of each committed item', async (t) => {
  const app = await slowApp(t, 60)
  const logs = [new EventLog(), new EventLog()]
  const sessions = await Promise.all(logs.map((log) => app.dictum.live.open(COMMIT, log.listener)))
  for (const session of sessions) await commitClip(session)
  await app.close()
  for (const log of logs) {
    t.equal(log.of('committed').length, 1)
    t.same(
      log.of('failed').map((e) => [e.itemId, e.error.code]),
      [[log.of('committed')[0]?.itemId, 'SESSION_CLOSED']],
    )
  }
})
