/**
 * The Redis queue backend loads its module (BullMQ, ioredis) on first use, not with the app: an app on the
 * `redis` backend still starts and answers at once, and its job routes behave as the Redis backend does
 * (here, with no Redis listening: 503 JOBS_UNAVAILABLE). A listener subscribed before the module is there
 * is handed on to it.
 */
import t from 'tap'
import { LazyJobBackend } from '../../jobs/lazy-backend.ts'
import type { JobBackend, JobEvent } from '../../jobs/types.ts'
import { build, injectJson } from '../helpers/build.ts'
import { freePort } from '../helpers/serve.ts'

t.test(
  'an app on the redis backend starts; its routes answer through the module loaded on use',
  async (t) => {
    const port = await freePort() // nothing listens there
    const app = await build(t, { jobs: { backend: 'redis', redis: { url: `redis://127.0.0.1:${port}` } } })
    t.equal((await injectJson(app, 'GET', '/v1/health')).status, 200)
    t.equal(app.dictum.jobs.kind, 'redis')
    const list = await injectJson(app, 'GET', '/v1/jobs')
    t.equal(list.status, 503)
    t.equal(list.body.code, 'JOBS_UNAVAILABLE')
  },
)

t.test('loads once, on the first call; a listener subscribed before is handed on', async (t) => {
  const listeners: Array<(event: JobEvent) => void> = []
  let loads = 0
  let closed = 0
  const loaded = {
    kind: 'redis',
    start: async () => {},
    get: async () => null,
    subscribe: (_id: string, listener: (event: JobEvent) => void) => {
      listeners.push(listener)
      return () => listeners.splice(listeners.indexOf(listener), 1)
    },
    close: async () => {
      closed++
    },
  } as unknown as JobBackend
  const lazy = new LazyJobBackend('redis', async () => {
    loads++
    return loaded
  })
  t.equal(loads, 0, 'nothing loaded when made')
  const events: JobEvent[] = []
  lazy.subscribe('job_1', (event) => events.push(event))
  t.equal(await lazy.get('job_1'), null)
  t.equal(await lazy.get('job_2'), null)
  t.equal(loads, 1, 'loaded once')
  t.equal(listeners.length, 1, 'the early listener reached the loaded backend')
  listeners[0]?.({ type: 'progress' } as unknown as JobEvent)
  t.equal(events.length, 1)
  await lazy.close()
  t.equal(closed, 1)

  const never = new LazyJobBackend('redis', async () => {
    throw new Error('must not load')
  })
  await never.close()
  t.pass('closing a backend never used loads nothing')
})
