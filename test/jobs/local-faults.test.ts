/**
 * The local backend under faults (issue 28 item 12): a full disk under the database while jobs wait and one
 * runs, then space freed. A service killed mid-job (item 13) is test/process/local-queue-crash.test.ts.
 */
import path from 'node:path'
import t from 'tap'
import type { JobEvent } from '../../jobs/types.ts'
import { build, injectJson, tempDir } from '../helpers/build.ts'
import { mountSmallDisk, smallDiskSkip } from '../helpers/small-disk.ts'
import { JFK, type Json, slowOverrides, until, waitFor } from './helpers.ts'

const fullDisk = 'a full disk: the queue recovers by itself once space is freed, and every job ends once'
t.test(fullDisk, { skip: smallDiskSkip }, async (t) => {
  const disk = mountSmallDisk(t, 16)
  const results = path.join(tempDir(t), 'results') // the database alone is on the small disk
  const app = await build(t, slowOverrides(disk.dir, 1500, { resultsDir: results }))
  const ids: string[] = []
  const events = new Map<string, JobEvent['type'][]>()
  for (let i = 0; i < 4; i++) {
    const id = (await injectJson(app, 'POST', '/v1/jobs', { path: JFK })).body.id as string
    ids.push(id)
    events.set(id, [])
    app.dictum.jobs.subscribe(id, (event) => events.get(id)!.push(event.type))
  }
  await waitFor(app, ids[0]!, (j) => j.state === 'active')
  disk.fill()
  // The running job ends while the disk is full: its end cannot be written, nor can the next job be taken.
  await until(async () => (await workers(app)).done >= 1)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  t.equal((await injectJson(app, 'GET', `/v1/jobs/${ids[1]}`)).body.state, 'queued', 'nothing started')
  disk.free()
  // Nothing submitted and no run ending: the queue must start again by itself.
  const done: Json[] = []
  for (const id of ids) done.push(await waitFor(app, id, undefined, 120_000))
  t.same(
    done.map((j) => j.state),
    ['completed', 'completed', 'completed', 'completed'],
  )
  t.same(
    done.map((j) => j.attempts),
    [1, 1, 1, 1],
    'each ran once: the end of the first was recorded, not run again',
  )
  t.equal(done[0].error, null)
  for (const id of ids) {
    t.equal(events.get(id)!.filter((type) => type === 'completed').length, 1, `${id}: completed once`)
  }
})

async function workers(app: Awaited<ReturnType<typeof build>>): Promise<Json> {
  return (await injectJson(app, 'GET', '/v1/jobs/workers')).body.items[0]
}
