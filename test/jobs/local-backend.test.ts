/**
 * The local backend's scheduling with the slow fixture engine (its own process, a fixed delay per
 * transcription): cancel of a queued and of a running job, priority order, a restart mid-batch, stops that
 * count against no job, and dictation going ahead of queued job requests on the engine (a full disk:
 * local-faults.test.ts; crashes: test/process/local-queue-crash.test.ts).
 */
import t from 'tap'
import { buildApp } from '../../server/app.ts'
import { build, injectJson, tempDir, testConfig } from '../helpers/build.ts'
import { JFK, type Json, job, slowOverrides, waitFor } from './helpers.ts'

const isActive = (j: Json) => j.state === 'active'

t.test('cancel: a queued job never runs; a running one is aborted', async (t) => {
  // An hour a job: a cancel that waited for the run would never answer within the test's time.
  const app = await build(t, slowOverrides(tempDir(t), 3_600_000))
  const first = (await injectJson(app, 'POST', '/v1/jobs', { path: JFK })).body
  const second = (await injectJson(app, 'POST', '/v1/jobs', { path: JFK })).body
  await waitFor(app, first.id, isActive)
  const cancelledQueued = await injectJson(app, 'DELETE', `/v1/jobs/${second.id}`)
  t.equal(cancelledQueued.status, 200)
  t.equal(cancelledQueued.body.state, 'cancelled')
  t.equal(cancelledQueued.body.attempts, 0, 'it never ran')
  const cancelledActive = await injectJson(app, 'DELETE', `/v1/jobs/${first.id}`)
  t.equal(cancelledActive.status, 200, 'answered during the hour-long run: it was aborted, not waited for')
  t.equal(cancelledActive.body.state, 'cancelled')
  t.equal(cancelledActive.body.result, null)
  const again = await injectJson(app, 'DELETE', `/v1/jobs/${first.id}`)
  t.equal(again.body.state, 'cancelled', 'a final job is answered unchanged')
  t.equal((await job(app, second.id)).state, 'cancelled', 'the queued one was not started afterwards')
})

t.test('queued jobs run by priority, then in submission order', async (t) => {
  const app = await build(t, slowOverrides(tempDir(t), 300))
  const blocker = (await injectJson(app, 'POST', '/v1/jobs', { path: JFK })).body
  await waitFor(app, blocker.id, isActive)
  const submit = async (priority: number) =>
    (await injectJson(app, 'POST', '/v1/jobs', { path: JFK, priority })).body.id as string
  const low = await submit(-5)
  const normal1 = await submit(0)
  const high = await submit(10)
  const normal2 = await submit(0)
  const done = []
  for (const id of [blocker.id, low, normal1, high, normal2]) done.push(await waitFor(app, id))
  const order = [...done].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt)).map((j) => j.id)
  t.same(order, [blocker.id, high, normal1, normal2, low])
})

t.test('a restart mid-batch loses no job and runs each to completed once', async (t) => {
  const dataDir = tempDir(t)
  const first = await buildApp(testConfig(t, slowOverrides(dataDir, 800)), { logger: false })
  await first.ready()
  const ids: string[] = []
  for (let i = 0; i < 3; i++) ids.push((await injectJson(first, 'POST', '/v1/jobs', { path: JFK })).body.id)
  const interrupted = await waitFor(first, ids[0] as string, isActive)
  t.equal(interrupted.attempts, 1)
  await first.close() // mid-run: the engine is working on the first job
  const second = await build(t, slowOverrides(dataDir, 50))
  const done = []
  for (const id of ids) done.push(await waitFor(second, id))
  t.same(
    done.map((j) => j.state),
    ['completed', 'completed', 'completed'],
  )
  t.equal(done[0].attempts, 1, 'the run a stop interrupted is not counted')
  t.equal(done[0].error, null, 'completed: no error left')
  t.same(
    done.slice(1).map((j) => j.attempts),
    [1, 1],
    'the queued ones ran once',
  )
  const list = await injectJson(second, 'GET', '/v1/jobs')
  t.equal(list.body.count, 3, 'no job lost or doubled')
})

t.test('stops mid-run, again and again, never fail a job (a stop is not its fault)', async (t) => {
  const dataDir = tempDir(t)
  let id = ''
  for (let run = 1; run <= 3; run++) {
    const app = await buildApp(testConfig(t, slowOverrides(dataDir, 5000, { attempts: 2 })), {
      logger: false,
    })
    await app.ready()
    if (run === 1) id = (await injectJson(app, 'POST', '/v1/jobs', { path: JFK })).body.id
    const active = await waitFor(app, id, isActive)
    t.equal(active.attempts, 1, 'the run now is its only one counted')
    await app.close()
  }
  const last = await build(t, slowOverrides(dataDir, 50, { attempts: 2 }))
  const done = await waitFor(last, id, undefined, 120_000)
  t.equal(done.state, 'completed')
  t.equal(done.attempts, 1)
})

t.test(
  'dictation goes first: a /v1/dictate arriving while jobs wait for the engine finishes before them',
  async (t) => {
    // Three jobs at once for one engine slot: two of them wait in the engine's queue when the dictation comes.
    const app = await build(t, slowOverrides(tempDir(t), 1000, { concurrency: 3 }))
    // The engine loaded first, so that the jobs' requests are queued for it (not for its load) when the dictation comes.
    t.equal((await injectJson(app, 'POST', '/v1/transcribe', { path: JFK })).status, 200)
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await injectJson(app, 'POST', '/v1/jobs', { path: JFK })).body.id)
    for (const id of ids) await waitFor(app, id, isActive)
    await new Promise((resolve) => setTimeout(resolve, 300)) // the jobs' audio read, their requests queued
    const dictation = await injectJson(app, 'POST', '/v1/dictate', { path: JFK })
    const dictatedAt = Date.now()
    t.equal(dictation.status, 200, JSON.stringify(dictation.body))
    const jobs = []
    for (const id of ids) jobs.push(await waitFor(app, id))
    const after = jobs.filter((j) => Date.parse(j.finishedAt) > dictatedAt).length
    // In arrival order (before engine requests had a priority) all three finished before the dictation.
    t.ok(after >= 2, `the jobs waiting for the engine finished after the dictation (${after} of 3)`)
  },
)
