/**
 * The Redis backend end to end (issue 15 items 2–4): a real redis-server (test/helpers/redis-server.ts), two
 * real `dictum worker` processes with pocketsphinx, and the service's side (RedisJobBackend) submitting and
 * reading jobs, on the repo's clips. The subtests run in order on the same Redis and workers: batch, fan-out
 * equality, idempotent resubmission, retries, kill -9 of a worker mid-job, Redis restart, cancel, priority order.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import t from 'tap'
import { resolveConfig } from '../../config/load.ts'
import { isDictumError } from '../../errors/catalogue.ts'
import { RedisJobBackend } from '../../jobs/redis/backend.ts'
import { PREFIX, partJobId, QUEUE } from '../../jobs/redis/queue.ts'
import type { JobRecord, JobSpec } from '../../jobs/types.ts'
import { ConfigStore } from '../../kernel/config-store.ts'
import { buildApp } from '../../server/app.ts'
import { ConfigSchema } from '../../server/config-schema.ts'
import { cleanEnv, tempDir } from '../cli/run-cli.ts'
import { injectJson } from '../helpers/build.ts'
import { audioFixturesDir, repoRoot } from '../helpers/fixtures.ts'
import { startRedis } from '../helpers/redis-server.ts'

const BIN = path.join(repoRoot, 'bin/dictum.js')
/** Generous: the machine is shared; nothing here is a timing claim. */
const WAIT_MS = 90_000
const CLIPS = [
  'jfk.wav',
  'librispeech-1089-134686-0000.wav',
  'librivox-austen-0870.wav',
  'goforward.wav',
  'librispeech-1089-134686-0001.wav',
  'librivox-austen-0880.wav',
  'librivox-austen-0890.wav',
  'cards-001.wav',
]
const clip = (name: string) => path.join(audioFixturesDir, name)
const quiet = { debug() {}, info() {}, warn() {}, error() {} }

const redis = await startRedis()
t.teardown(() => redis.close())
const dir = tempDir(t, 'dictum-redis-jobs-')
const settings = {
  dataDir: path.join(dir, 'data'),
  log: { level: 'warn' },
  speech: { engine: 'pocketsphinx' },
  // Pieces of at most 20 s, so the long file (54 s) is cut into several (it would fit pocketsphinx's 60 s).
  vad: { maxSegmentSeconds: 20 },
  jobs: {
    backend: 'redis',
    resultsDir: path.join(dir, 'results'),
    attempts: 3,
    // The retry subtest fetches audio from a loopback server.
    urlAllow: ['127.0.0.1'],
    redis: {
      url: redis.url,
      // Short, so a dead worker's job is run again within seconds.
      lockDurationMs: 2000,
      stalledIntervalMs: 1000,
      retryDelayMs: 100,
      fanOutSeconds: 40,
      partSeconds: 15,
    },
  },
}
const configFile = path.join(dir, 'config.json')
writeFileSync(configFile, JSON.stringify(settings))
const config = resolveConfig(ConfigSchema, settings)

// A long file (the clips with pauses between them, 54 s: fans out) and a medium one (33 s: does not).
const long = path.join(dir, 'long.wav')
const padded = CLIPS.map((name, i) => {
  const out = path.join(dir, `padded-${i}.wav`)
  execFileSync('sox', [clip(name), out, 'pad', '0', '1.2'])
  return out
})
execFileSync('sox', [...padded, long])
const medium = path.join(dir, 'medium.wav')
execFileSync('sox', [clip('jfk.wav'), clip('jfk.wav'), clip('jfk.wav'), medium])

const backend = new RedisJobBackend({ configStore: new ConfigStore(config), logger: quiet })
t.teardown(() => backend.close())
const inspect = new Redis(redis.url, { maxRetriesPerRequest: null })
t.teardown(() => inspect.disconnect())
inspect.on('error', () => {}) // while Redis restarts
const queue = new Queue(QUEUE, { connection: inspect, prefix: PREFIX })
queue.on('error', () => {})
t.teardown(() => queue.close())

const workers: ChildProcess[] = []

/**
 * The processes `pid` started and that still run (Linux: /proc/PID/task/TID/children). A thread listed may
 * end before its children are read: it has none then (as in test/lib/thread-priority.test.ts).
 */
function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      return []
    }
  })
}

/** A process's nice value (field 19 of its stat). */
function niceOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
}
/**
 * A worker process. Its stop grace is generous by default, so a job it runs finishes whatever the load (a
 * 10 s grace once ran out on a busy machine and the job was rightly handed back: the test read 'queued').
 */
function startWorker(graceSeconds = 600): ChildProcess {
  const args = [BIN, 'worker', '--config', configFile, '--grace-seconds', String(graceSeconds)]
  const child = spawn(process.execPath, args, {
    env: cleanEnv(dir),
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  workers.push(child)
  return child
}
const killWorkers = () => {
  for (const child of workers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
}
t.teardown(killWorkers)
process.once('exit', killWorkers) // also when the run ends early
const alive = () => workers.filter((w) => w.exitCode === null && w.signalCode === null)

/** Resolves once `count` workers have written their heartbeat (they take jobs from then on). */
async function untilWorkers(count: number): Promise<void> {
  await until(async () => (await backend.workers()).length >= count, 'workers ready')
}

function spec(file: string, extra: Partial<JobSpec> = {}): JobSpec {
  return {
    input: { kind: 'path', path: file },
    formats: ['text', 'json'],
    priority: 0,
    idempotencyKey: null,
    batchId: null,
    language: null,
    prompt: null,
    ...extra,
  }
}

/** Polls `check` until it gives a value; a 503 (Redis reconnecting after its restart) is asked again. */
async function until<T>(check: () => Promise<T | false | null | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    const value = await check().catch((error: unknown) => {
      if (isDictumError(error) && error.code === 'JOBS_UNAVAILABLE') return null
      throw error
    })
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function untilFinal(id: string): Promise<JobRecord> {
  return until(async () => {
    const job = await backend.get(id)
    return job && ['completed', 'failed', 'cancelled'].includes(job.state) ? job : null
  }, `job ${id} to finish`)
}

async function untilActive(id: string): Promise<JobRecord> {
  return until(async () => {
    const job = await backend.get(id)
    return job?.state === 'active' && job.runner ? job : null
  }, `job ${id} to start`)
}

/** What one process transcribes for each file: the reference every job's text must equal. */
const reference = new Map<string, string>()
t.before(async () => {
  for (let i = 0; i < 2; i++) startWorker()
  const app = await buildApp(config, { logger: false })
  try {
    for (const file of [...CLIPS, 'cards-002.wav', 'cards-003.wav'].map(clip).concat(long, medium)) {
      reference.set(file, (await app.dictum.transcription.transcribe({ kind: 'file', path: file })).text)
    }
  } finally {
    await app.close()
  }
  await untilWorkers(2)
})

t.test(
  'a folder submitted to the API runs on both workers, each text as one process transcribes it',
  async (t) => {
    const folder = path.join(dir, 'batch')
    mkdirSync(folder)
    for (const name of CLIPS) copyFileSync(clip(name), path.join(folder, name))
    const app = await buildApp(config, { logger: false })
    t.teardown(() => app.close())
    const res = await injectJson(app, 'POST', '/v1/jobs', { path: folder, formats: ['text', 'json'] })
    t.equal(res.status, 201, JSON.stringify(res.body))
    t.equal(res.body.count, CLIPS.length)
    const done: JobRecord[] = await Promise.all(res.body.jobs.map((job: JobRecord) => untilFinal(job.id)))
    for (const job of done) {
      const name = path.basename((job.input as { path: string }).path)
      t.equal(job.state, 'completed', name)
      t.equal(job.result?.text, reference.get(clip(name)), `${name}: the single-process text`)
      t.equal(job.runner?.engine, 'pocketsphinx')
      const text = path.join(settings.jobs.resultsDir, job.result!.files.text!)
      t.equal(readFileSync(text, 'utf8').trim(), job.result?.text, 'the text file in the results folder')
    }
    const pids = new Set(done.map((job) => job.runner?.pid))
    t.equal(pids.size, 2, 'both workers ran jobs')
    // A worker serves no API: its engine hosts run at its own priority, not below it, so they do not wait
    // behind every busy program on the machine.
    for (const worker of alive()) {
      const hosts = childrenOf(worker.pid!)
      t.ok(hosts.length >= 1, `worker ${worker.pid} has its engine host`)
      t.same(
        hosts.map(niceOf),
        hosts.map(() => niceOf(worker.pid!)),
        'its engine hosts run at its priority',
      )
    }
    const heartbeats = await backend.workers()
    t.ok(
      heartbeats.every((w) => w.engine === 'pocketsphinx' && w.host && w.throughput > 0),
      'workers report engine, host and throughput',
    )
    // Each worker writes its heartbeat as a run ends: wait until both show theirs.
    const listedWorkers = await until(async () => {
      const res = await injectJson(app, 'GET', '/v1/jobs/workers')
      return res.body.items.every((w: { done: number }) => w.done > 0) && res
    }, 'both heartbeats to count their runs')
    t.equal(listedWorkers.body.backend, 'redis')
    t.same(
      new Set(listedWorkers.body.items.map((w: { pid: number }) => w.pid)),
      new Set(alive().map((w) => w.pid)),
      'GET /v1/jobs/workers lists both workers',
    )
    t.ok(
      listedWorkers.body.items.every((w: { engine: string }) => w.engine === 'pocketsphinx'),
      'with the engine each runs',
    )
    const listed = await injectJson(app, 'GET', '/v1/jobs?state=completed&limit=100')
    t.same(
      new Set(listed.body.items.map((job: JobRecord) => job.id)),
      new Set(done.map((job) => job.id)),
      'GET /v1/jobs lists them completed',
    )
  },
)

t.test('uploads: a small one travels in the job, a larger one is read from the spool', async (t) => {
  const app = await buildApp(config, { logger: false })
  t.teardown(() => app.close())
  const upload = async (name: string) => {
    const form = new FormData()
    form.append('file', new Blob([readFileSync(clip(name))]), name)
    const request = new Request('http://x/', { method: 'POST', body: form })
    const reply = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { 'content-type': request.headers.get('content-type') as string },
      payload: Buffer.from(await request.arrayBuffer()),
    })
    t.equal(reply.statusCode, 201, reply.body)
    return reply.json() as JobRecord
  }
  const small = await upload('cards-001.wav') // 35 KB
  const large = await upload('jfk.wav') // 352 KB, over the 256 KB cap
  t.ok((await queue.getJob(small.id))?.data.inline, 'the small upload is in the job')
  t.notOk((await queue.getJob(large.id))?.data.inline, 'the large one is not')
  for (const [job, name] of [
    [small, 'cards-001.wav'],
    [large, 'jfk.wav'],
  ] as const) {
    const done = await untilFinal(job.id)
    t.equal(done.state, 'completed')
    t.equal(done.result?.text, reference.get(clip(name)))
  }
  const spool = path.join(settings.jobs.resultsDir, 'spool')
  await until(async () => readdirSync(spool).length === 0, 'the spool to empty')
  t.same(readdirSync(spool), [], 'spooled uploads are removed when their jobs are over')
})

t.test('a long file fans out into parts and joins to the single-process transcript', async (t) => {
  const { job } = await backend.submit(spec(long, { formats: ['text', 'srt'] }))
  const done = await untilFinal(job.id)
  t.equal(done.state, 'completed')
  t.ok(await queue.getJob(partJobId(job.id, 2)), 'it was cut into (at least three) parts')
  t.equal(done.result?.text, reference.get(long), 'the text equals the single-process transcript')
  t.ok((done.result?.durationSeconds ?? 0) > 50, 'the whole file')
  const srt = readFileSync(path.join(settings.jobs.resultsDir, done.result!.files.srt!), 'utf8')
  const starts = [...srt.matchAll(/^(\d\d):(\d\d):(\d\d),(\d\d\d) -->/gmu)].map(
    ([, h, m, s, ms]) => Number(h) * 3600 + Number(m) * 60 + Number(s) + Number(ms) / 1000,
  )
  t.ok(starts.length > 5, 'subtitles')
  t.same(
    starts,
    [...starts].sort((a, b) => a - b),
    'cues in order',
  )
  t.ok(starts.at(-1)! > 40, 'times are absolute (the last cue is near the end of the file)')
  // processingSeconds counts the parts' work (issue 28 item 15: it counted only the join). Each part's run
  // as BullMQ saw it (taken to finished) bounds the work from above, so half of their sum is a safe floor.
  let partsSeconds = 0
  for (let index = 0; ; index++) {
    const part = await queue.getJob(partJobId(job.id, index))
    if (!part) break
    t.ok(part.returnvalue.processingSeconds > 0, `part ${index} reports its own processing`)
    partsSeconds += (part.finishedOn! - part.processedOn!) / 1000
  }
  t.ok(
    done.result!.processingSeconds >= partsSeconds / 2,
    `processingSeconds ${done.result!.processingSeconds} counts the parts' runs (${partsSeconds} s)`,
  )
})

t.test('a resubmission with the same idempotency key gives the first job', async (t) => {
  const first = await backend.submit(spec(clip('cards-001.wav'), { idempotencyKey: 'nightly-42' }))
  const again = await backend.submit(spec(clip('jfk.wav'), { idempotencyKey: 'nightly-42' }))
  t.equal(first.created, true)
  t.equal(again.created, false)
  t.equal(again.job.id, first.job.id)
  t.same(again.job.input, { kind: 'path', path: clip('cards-001.wav') }, 'the first job, unchanged')
  const done = await untilFinal(first.job.id)
  const third = await backend.submit(spec(clip('jfk.wav'), { idempotencyKey: 'nightly-42' }))
  t.equal(third.job.id, first.job.id, 'still the same job once it completed')
  t.equal(third.job.state, 'completed')
  t.equal(done.result?.text, reference.get(clip('cards-001.wav')))
  const all = await backend.list({ limit: 1000 })
  t.equal(all.jobs.filter((job) => job.id === first.job.id).length, 1, 'one job')
})

t.test(
  'a run failing again and again fails with its reason after jobs.attempts; bad input at once',
  async (t) => {
    const asked = new Map<string, number>()
    const server = createServer((request, response) => {
      asked.set(request.url!, (asked.get(request.url!) ?? 0) + 1)
      response.writeHead(request.url === '/busy.wav' ? 503 : 404).end()
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    t.teardown(() => server.close())
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const busy = await backend.submit(spec('', { input: { kind: 'url', url: `${base}/busy.wav` } }))
    const missing = await backend.submit(spec('', { input: { kind: 'url', url: `${base}/missing.wav` } }))
    const failed = await untilFinal(busy.job.id)
    t.equal(failed.state, 'failed')
    t.equal(failed.attempts, 3, 'jobs.attempts runs')
    t.equal(asked.get('/busy.wav'), 3, 'the audio was asked for three times')
    t.equal(failed.error?.code, 'AUDIO_URL_FAILED')
    t.match(failed.error?.message, /answered 503/u, 'its reason')
    const refused = await untilFinal(missing.job.id)
    t.equal(refused.state, 'failed')
    t.equal(refused.attempts, 1, 'a 4xx is not tried again')
    t.equal(refused.error?.code, 'AUDIO_URL_REFUSED')
  },
)

t.test('a worker killed with kill -9 mid-job: the other runs the job, which completes once', async (t) => {
  const { job } = await backend.submit(spec(medium))
  const events: string[] = []
  const unsubscribe = backend.subscribe(job.id, (event) => events.push(event.type))
  t.teardown(unsubscribe)
  const active = await untilActive(job.id)
  const victim = alive().find((w) => w.pid === active.runner?.pid)
  t.ok(victim, 'the job runs in one of the workers')
  victim!.kill('SIGKILL')
  await once(victim!, 'exit')
  const done = await untilFinal(job.id)
  t.equal(done.state, 'completed')
  t.equal(done.attempts, 1, 'a second run; the one its worker died in is not counted')
  t.not(done.runner?.pid, victim!.pid, 'by the other worker')
  t.equal(done.result?.text, reference.get(medium))
  await until(async () => events.includes('completed'), 'the completed event')
  t.equal(events.filter((type) => type === 'completed').length, 1, 'completed once')
})

t.test(
  'workers killed again and again under the head job: it goes behind the others, and no job fails',
  async (t) => {
    // A long job at the head of the queue, three short ones behind it.
    const head = await backend.submit(spec(medium))
    const others = await Promise.all(
      ['cards-001.wav', 'cards-002.wav', 'cards-003.wav'].map((name) => backend.submit(spec(clip(name)))),
    )
    let victimPid = 0
    for (let kill = 0; kill < 3; kill++) {
      // Running in a live worker (not its dead one's stale record).
      const active = await until(async () => {
        const job = await backend.get(head.job.id)
        const pid = job?.runner?.pid
        return job?.state === 'active' && pid !== victimPid && alive().some((w) => w.pid === pid) ? job : null
      }, 'the head job to run')
      t.ok(active.attempts <= active.maxAttempts, `attempts ${active.attempts} of ${active.maxAttempts}`)
      if (kill === 1) {
        const states = await Promise.all(others.map(({ job }) => backend.get(job.id)))
        t.ok(
          states.every((job) => job?.state !== 'queued'),
          'after its worker died, the others started before the head job ran again',
        )
      }
      const victim = alive().find((w) => w.pid === active.runner?.pid)!
      victimPid = victim.pid!
      const replacement = startWorker() // as many workers after as before
      victim.kill('SIGKILL')
      await once(victim, 'exit')
      await until(
        async () => (await backend.workers()).some((w) => w.pid === replacement.pid),
        'a new worker',
      )
    }
    const done = await untilFinal(head.job.id)
    t.equal(done.state, 'completed', 'the head job is not failed for the deaths of its workers')
    t.equal(done.attempts, 1, 'none of the runs its workers died in counts')
    t.equal(done.result?.text, reference.get(medium))
    for (const { job } of others) t.equal((await untilFinal(job.id)).state, 'completed')
  },
)

t.test('Redis restarted: the service answers 503 meanwhile, workers reconnect, no job is lost', async (t) => {
  const jobs = await Promise.all(
    ['goforward.wav', 'cards-002.wav', 'cards-003.wav', 'librivox-austen-0880.wav'].map((name) =>
      backend.submit(spec(clip(name))),
    ),
  )
  await untilActive(jobs[0]!.job.id)
  await redis.stop('SIGKILL')
  const error = await backend.get(jobs[0]!.job.id).catch((e: unknown) => e)
  t.ok(isDictumError(error) && error.code === 'JOBS_UNAVAILABLE', 'JOBS_UNAVAILABLE while Redis is down')
  t.equal(isDictumError(error) ? error.statusCode : 0, 503)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  await redis.start()
  await until(() => backend.get(jobs[0]!.job.id), 'the service to reach Redis again')
  for (const { job } of jobs) {
    const done = await untilFinal(job.id)
    t.equal(done.state, 'completed', `${job.id} completed`)
    t.equal(done.result?.text, reference.get((job.input as { path: string }).path))
  }
  t.equal(alive().length, 1, 'the worker still runs')
})

t.test('cancel: a queued job never runs; a running one stops', async (t) => {
  // The worker busy with the long file's parts, then another job; one more job waits behind them.
  const busy = await backend.submit(spec(long))
  const blocker = await backend.submit(spec(medium))
  await untilActive(blocker.job.id)
  const waiting = await backend.submit(spec(clip('jfk.wav'), { priority: -100 }))
  const cancelled = await backend.cancel(waiting.job.id)
  t.equal(cancelled?.state, 'cancelled', 'a queued job is cancelled at once')
  const running = await backend.cancel(blocker.job.id)
  t.equal(running?.state, 'cancelled', 'a running job is cancelled once its run has stopped')
  t.equal((await backend.get(blocker.job.id))?.result, null, 'no result')
  const big = await backend.cancel(busy.job.id)
  t.equal(big?.state, 'cancelled', 'a fanned-out job is cancelled with its parts')
  t.equal(await backend.cancel('job_doesnotexist'), null)
  // The workers go on: a job after them completes, the cancelled one stayed as it was.
  const after = await backend.submit(spec(clip('cards-001.wav')))
  t.equal((await untilFinal(after.job.id)).state, 'completed')
  const still = await backend.get(waiting.job.id)
  t.equal(still?.state, 'cancelled')
  t.equal(still?.runner, null, 'the cancelled queued job never ran')
  t.same((await backend.cancel(after.job.id))?.state, 'completed', 'a final job is left as it is')
})

t.test('priority: with one worker, queued jobs start highest priority first', async (t) => {
  const survivor = alive()[0]!
  t.equal(alive().length, 1)
  // Busy long enough (jfk.wav: ~1.5 s of work) for the three below to be queued behind it.
  const blocker = await backend.submit(spec(clip('jfk.wav')))
  await untilActive(blocker.job.id)
  const low = await backend.submit(spec(clip('cards-001.wav'), { priority: -10 }))
  const normal = await backend.submit(spec(clip('cards-002.wav'), { priority: 0 }))
  const high = await backend.submit(spec(clip('cards-003.wav'), { priority: 10 }))
  const done = await Promise.all([low, normal, high].map(({ job }) => untilFinal(job.id)))
  const [lowStart, normalStart, highStart] = done.map((job) => Date.parse(job.startedAt!))
  t.ok(highStart! < normalStart! && normalStart! < lowStart!, 'high, then normal, then low')
  t.ok(done.every((job) => job.runner?.pid === survivor.pid))
})

t.test('SIGTERM mid-job: the worker finishes its job, then exits cleanly', async (t) => {
  const [last] = alive()
  const { job } = await backend.submit(spec(clip('jfk.wav')))
  await untilActive(job.id)
  last!.kill('SIGTERM')
  const [code] = await once(last!, 'exit')
  t.equal(code, 0)
  const done = await backend.get(job.id)
  t.equal(done?.state, 'completed', 'its job completed before it exited')
  t.equal(done?.attempts, 1)
  t.same(await backend.workers(), [], 'its heartbeat is gone')
})

t.test(
  'SIGTERM past the grace: the running job is handed back to the queue, no attempt counted',
  async (t) => {
    t.same(alive(), [], 'no other worker takes the job meanwhile')
    const worker = startWorker(0)
    await untilWorkers(1)
    const { job } = await backend.submit(spec(medium))
    const running = await untilActive(job.id)
    t.equal(running.runner?.pid, worker.pid)
    worker.kill('SIGTERM')
    const [code] = await once(worker, 'exit')
    t.equal(code, 0, 'the worker exits cleanly')
    const back = await backend.get(job.id)
    t.equal(back?.state, 'queued', 'the job waits for another worker')
    t.equal(back?.attempts, 0, 'the interrupted run is not counted as an attempt')
    await backend.cancel(job.id)
  },
)
