/**
 * The jobs API while Redis is down (issue 28 item 15): a 503 in dictum's words, naming the Redis address
 * without its password, never ioredis's wording (`Stream isn't writeable and enableOfflineQueue options is
 * false`, `Connection is closed.`). A real redis-server (test/helpers/redis-server.ts), killed mid-way, and a
 * port where nothing listens.
 */
import t from 'tap'
import { injectJson } from '../helpers/build.ts'
import { startRedis } from '../helpers/redis-server.ts'
import { freePort } from '../helpers/serve.ts'
import { buildJobsApp } from './helpers.ts'

/** The 503 of GET /v1/jobs with Redis at `url` unreachable. */
function expected(port: number) {
  return {
    error: `Job queue unavailable: Redis at redis://127.0.0.1:${port} does not answer; jobs can be submitted and read again once it is back.`,
    code: 'JOBS_UNAVAILABLE',
  }
}

t.test('Redis killed while the service runs: a 503 in dictum words, the password left out', async (t) => {
  const redis = await startRedis()
  t.teardown(() => redis.close())
  const url = redis.url.replace('//', '//:S3CRET-PW@')
  const app = await buildJobsApp(t, { jobs: { backend: 'redis', redis: { url } } })
  t.equal((await injectJson(app, 'GET', '/v1/jobs')).status, 200, 'Redis answers')
  await redis.stop('SIGKILL')
  for (const [method, path] of [
    ['GET', '/v1/jobs'],
    ['GET', '/v1/jobs/job_x'],
  ] as const) {
    const response = await injectJson(app, method, path)
    t.equal(response.status, 503, path)
    t.same(response.body, expected(redis.port))
  }
})

t.test('nothing listening at the Redis address: the same 503', async (t) => {
  const port = await freePort()
  const app = await buildJobsApp(t, {
    jobs: { backend: 'redis', redis: { url: `redis://127.0.0.1:${port}` } },
  })
  const response = await injectJson(app, 'GET', '/v1/jobs')
  t.equal(response.status, 503)
  t.same(response.body, expected(port))
})
