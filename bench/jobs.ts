/**
 * Section `jobs`: transcription jobs on Redis (issue 15), pocketsphinx on the repo's clips, with a real
 * redis-server (test/helpers/redis-server.ts) and real `dictum worker` processes.
 *
 * - A batch of clips through 1 worker against 2 workers (target ≥ 1.7× on 2 cores): the time from
 *   submitting the batch until its last job completes, the workers already warm (each ran one job first).
 * - The same batch through the queue with 1 worker against `dictum transcribe --local` of the same files in
 *   one process (target ≤ 1.10), start to exit: what a user sees. `dictum transcribe` pays its process
 *   start and a cold engine; the worker is warm. So the same files are also transcribed by a warm
 *   TranscriptionService in this process, one after the other: queue / warm is what the queue itself
 *   (Redis round trips, one job per file, result files) adds to the same work on the same engine.
 *
 * Rounds alternate 1 worker, 2 workers and the direct command, so machine noise hits all alike. The control,
 * two `dictum transcribe` processes at once with half the batch each, says what a second core gives at that
 * moment: on a shared machine the 2-worker speed-up can be no better than it.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { resolveConfig } from '../config/load.ts'
import { RedisJobBackend } from '../jobs/redis/backend.ts'
import type { JobRecord, JobSpec } from '../jobs/types.ts'
import { ConfigStore } from '../kernel/config-store.ts'
import { buildApp } from '../server/app.ts'
import { ConfigSchema } from '../server/config-schema.ts'
import { referenceClips } from '../test/helpers/fixtures.ts'
import { startRedis } from '../test/helpers/redis-server.ts'
import { median, round } from './lib/load.ts'

const ROOT = path.resolve(import.meta.dirname, '..')
const BIN = path.join(ROOT, 'bin/dictum.js')
/** The repo's clips with references (refs.tsv). */
const CLIPS = referenceClips()
/** The batch: the clips twice (94 s of speech). */
const BATCH = [...CLIPS, ...CLIPS]
const ROUNDS = 3
const quiet = { debug() {}, info() {}, warn() {}, error() {} }

export async function benchJobs(): Promise<Record<string, number | string>> {
  const loadBefore = round(loadavg()[0]!, 1)
  const redis = await startRedis()
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-bench-jobs-'))
  const settings = {
    dataDir: path.join(dir, 'data'),
    log: { level: 'warn' },
    speech: { engine: 'pocketsphinx' },
    jobs: { backend: 'redis', resultsDir: path.join(dir, 'results'), redis: { url: redis.url } },
  }
  const configFile = path.join(dir, 'config.json')
  writeFileSync(configFile, JSON.stringify(settings))
  const env = { ...process.env, DICTUM_SERVER: 'none' }
  const config = resolveConfig(ConfigSchema, settings)
  const backend = new RedisJobBackend({ configStore: new ConfigStore(config), logger: quiet })
  const app = await buildApp(config, { logger: false })
  const transcription = app.dictum.transcription
  const inProcess = async () => {
    const started = performance.now()
    for (const file of BATCH)
      await transcription.transcribe({ kind: 'file', path: file }, { priority: 'low' })
    return performance.now() - started
  }
  await transcription.transcribe({ kind: 'file', path: CLIPS[0]! }) // its engine loads first
  const workers: ChildProcess[] = []
  const startWorker = async () => {
    const child = spawn(process.execPath, [BIN, 'worker', '--config', configFile], { env, stdio: 'ignore' })
    workers.push(child)
    const count = workers.length
    while ((await backend.workers()).length < count) await sleep(50)
    await runBatch(backend, [CLIPS[0]!]) // its engine loads before the timing starts
  }
  const stopWorker = async () => {
    const child = workers.pop()
    if (!child) return
    child.kill('SIGTERM')
    await once(child, 'exit')
    while ((await backend.workers()).length > workers.length) await sleep(50)
  }
  try {
    const one: number[] = []
    const two: number[] = []
    const parallel: number[] = []
    const direct: number[] = []
    const warm: number[] = []
    const directPair: number[] = []
    let workSeconds = 0
    for (let i = 0; i < ROUNDS; i++) {
      await startWorker()
      const single = await runBatch(backend, BATCH)
      one.push(single.ms)
      workSeconds = single.workSeconds
      await startWorker()
      const pair = await runBatch(backend, BATCH)
      two.push(pair.ms)
      parallel.push((pair.workSeconds * 1000) / pair.ms)
      await stopWorker()
      await stopWorker()
      direct.push(await runDirect(configFile, env))
      // The control: what two cores give right now to two plain processes, each with half the batch.
      const halves = [BATCH.filter((_, i) => i % 2 === 0), BATCH.filter((_, i) => i % 2 === 1)]
      const bothStarted = performance.now()
      await Promise.all(halves.map((half) => runDirect(configFile, env, half)))
      directPair.push(performance.now() - bothStarted)
      warm.push(await inProcess())
    }
    const oneMs = median(one)
    const twoMs = median(two)
    const directMs = median(direct)
    const warmMs = median(warm)
    return {
      batch: `${BATCH.length} jobs (the repo's ${CLIPS.length} clips twice)`,
      '1 worker ms, median': round(oneMs, 0),
      '2 workers ms, median': round(twoMs, 0),
      '2 workers speed-up (target ≥ 1.7)': round(oneMs / twoMs),
      '2 workers: runs at once on average (Σ run time / wall)': round(median(parallel)),
      'control: 2 dictum transcribe processes (half each) speed-up': round(
        median(direct) / median(directPair),
      ),
      'dictum transcribe --local ms, median': round(directMs, 0),
      'queue (1 worker) / dictum transcribe (target ≤ 1.10)': round(oneMs / directMs),
      'warm TranscriptionService in process ms, median': round(warmMs, 0),
      'queue (1 worker) / warm in process': round(oneMs / warmMs),
      'queue overhead per job ms (1 worker: wall − run time)': round(
        (oneMs - workSeconds * 1000) / BATCH.length,
        1,
      ),
      rounds: ROUNDS,
      'load average before, after (2 cores)': `${loadBefore}, ${round(loadavg()[0]!, 1)}`,
    }
  } finally {
    for (const child of workers) child.kill('SIGKILL')
    await app.close()
    await backend.close()
    await redis.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Submits one job per file and waits for all to complete; wall ms and the runs' own seconds. */
async function runBatch(
  backend: RedisJobBackend,
  files: readonly string[],
): Promise<{ ms: number; workSeconds: number }> {
  const started = performance.now()
  const ids = await Promise.all(files.map(async (file) => (await backend.submit(spec(file))).job.id))
  const done: JobRecord[] = []
  for (const id of ids) {
    for (;;) {
      const job = await backend.get(id)
      if (job?.state === 'completed') {
        done.push(job)
        break
      }
      if (job && job.state !== 'queued' && job.state !== 'active')
        throw new Error(`bench job ${id} ended ${job.state}: ${job.error?.message}`)
      await sleep(10)
    }
  }
  const ms = performance.now() - started
  return { ms, workSeconds: done.reduce((sum, job) => sum + (job.result?.processingSeconds ?? 0), 0) }
}

function spec(file: string): JobSpec {
  return {
    input: { kind: 'path', path: file },
    formats: ['text'],
    priority: 0,
    idempotencyKey: null,
    batchId: null,
    language: null,
    prompt: null,
  }
}

/** Milliseconds of `dictum transcribe --local` of `files`, start to exit. */
function runDirect(
  configFile: string,
  env: NodeJS.ProcessEnv,
  files: readonly string[] = BATCH,
): Promise<number> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'transcribe', '--config', configFile, '--local', ...files], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text
    })
    child.once('exit', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`dictum transcribe: ${stderr}`)),
    )
  })
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
