/**
 * The local queue when the service dies (issue 28 item 13): a real `dictum serve` killed (kill -9) mid-job
 * again and again, on one data folder.
 */
import { once } from 'node:events'
import t, { type Test } from 'tap'
import { tempDir } from '../helpers/build.ts'
import { spawnServe } from '../helpers/serve.ts'
import { JFK, type Json, slowOverrides, until } from '../jobs/helpers.ts'

/** A real service on `dataDir` with the slow engine (3 s a job), each start a new process. */
function service(t: Test, dataDir: string) {
  return spawnServe(t, slowOverrides(dataDir, 3000), { dataDir })
}

type Serve = Awaited<ReturnType<typeof spawnServe>>

async function api(serve: Serve, method: string, route: string, body?: unknown): Promise<Json> {
  const response = await fetch(`http://127.0.0.1:${serve.port}${route}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  return response.json()
}

/** Polls the job on the service until `done(job)`. */
async function jobWhen(serve: Serve, id: string, done: (job: Json) => boolean): Promise<Json> {
  let job: Json
  await until(async () => {
    job = await api(serve, 'GET', `/v1/jobs/${id}`)
    return done(job)
  }, 120_000)
  return job
}

async function crash(serve: Serve): Promise<void> {
  const exited = once(serve.child, 'exit')
  serve.child.kill('SIGKILL')
  await exited
}

const isFinal = (job: Json) => ['completed', 'failed', 'cancelled'].includes(job.state)

t.test(
  'kill -9 of the service mid-job, three times: no job fails for it, none counts a run it did not end',
  async (t) => {
    const dataDir = tempDir(t)
    let serve = await service(t, dataDir)
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await api(serve, 'POST', '/v1/jobs', { path: JFK })).id)
    const interrupted: string[] = []
    for (let kill = 0; kill < 3; kill++) {
      if (kill > 0) serve = await service(t, dataDir)
      await until(async () => (await api(serve, 'GET', '/v1/jobs?state=active')).count > 0, 120_000)
      interrupted.push((await api(serve, 'GET', '/v1/jobs?state=active')).items[0].id)
      await crash(serve)
    }
    serve = await service(t, dataDir)
    const done: Json[] = []
    for (const id of ids) done.push(await jobWhen(serve, id, isFinal))
    t.same(
      done.map((j) => j.state),
      ['completed', 'completed', 'completed'],
      `every job completed (interrupted: ${interrupted.join(', ')})`,
    )
    t.same(
      done.map((j) => j.attempts),
      [1, 1, 1],
      'the crashes are not counted against the jobs',
    )
    t.ok(
      done.every((j) => j.attempts <= j.maxAttempts),
      'never more attempts than the maximum',
    )
    await crash(serve)
  },
)

t.test(
  'a job running at each of jobs.attempts crashes while the others ran fine is failed as their cause',
  async (t) => {
    const dataDir = tempDir(t)
    let serve = await service(t, dataDir)
    const suspect = (await api(serve, 'POST', '/v1/jobs', { path: JFK })).id as string
    const others: string[] = []
    for (let i = 0; i < 2; i++) others.push((await api(serve, 'POST', '/v1/jobs', { path: JFK })).id)
    for (let kill = 0; kill < 3; kill++) {
      if (kill > 0) serve = await service(t, dataDir)
      // The service goes down only while the suspect runs.
      await jobWhen(serve, suspect, (j) => j.state === 'active')
      if (kill === 1) {
        const before = await Promise.all(others.map((id) => api(serve, 'GET', `/v1/jobs/${id}`)))
        t.same(
          before.map((j) => j.state),
          ['completed', 'completed'],
          'after a crash, the other jobs ran before the interrupted one',
        )
      }
      await crash(serve)
    }
    serve = await service(t, dataDir)
    const failed = await jobWhen(serve, suspect, isFinal)
    t.equal(failed.state, 'failed')
    t.match(failed.error, { code: 'JOB_INTERRUPTED', message: /likely cause/u })
    t.equal(failed.attempts, failed.maxAttempts, 'its interrupted runs counted, up to the maximum')
    for (const id of others) t.equal((await api(serve, 'GET', `/v1/jobs/${id}`)).state, 'completed')
    await crash(serve)
  },
)
