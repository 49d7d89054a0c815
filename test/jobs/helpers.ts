/** Shared by the jobs tests: an app with the jobs feature on a temp data dir, and waiting for a job's state. */
import path from 'node:path'
import type { Test } from 'tap'
import type { BuildOptions, DictumApp } from '../../server/app.ts'
import {
  build,
  type ConfigOverrides,
  FIXTURE_ENGINE,
  FIXTURE_PROVIDER,
  FIXTURES,
  injectJson,
} from '../helpers/build.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'

export const JFK = path.join(audioFixturesDir, 'jfk.wav')
export const SLOW_ENGINE = path.join(FIXTURES, 'plugins/slow-engine.ts')

/** The fixture echo engine (instant), VAD off (speech is not the point). */
export function buildJobsApp(
  t: Test,
  overrides: ConfigOverrides = {},
  options: BuildOptions = {},
): Promise<DictumApp> {
  return build(t, { vad: { enabled: false }, ...overrides }, options)
}

/** The slow fixture engine (its own process, `delayMs` per transcription) with one slot. */
export function slowOverrides(dataDir: string, delayMs: number, jobs: object = {}): ConfigOverrides {
  return {
    dataDir,
    vad: { enabled: false },
    plugins: [FIXTURE_ENGINE, FIXTURE_PROVIDER, SLOW_ENGINE],
    speech: { engine: 'fixture-slow', concurrency: 1, engines: { 'fixture-slow': { delayMs } } },
    jobs,
  }
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
export type Json = any

export async function job(app: DictumApp, id: string): Promise<Json> {
  const res = await injectJson(app, 'GET', `/v1/jobs/${id}`)
  if (res.status !== 200) throw new Error(`GET /v1/jobs/${id}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/** Polls the job until `done(job)` (default: a final state), for at most `timeoutMs`. */
export async function waitFor(
  app: DictumApp,
  id: string,
  done: (job: Json) => boolean = (j) => ['completed', 'failed', 'cancelled'].includes(j.state),
  timeoutMs = 30_000,
): Promise<Json> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const current = await job(app, id)
    if (done(current)) return current
    if (performance.now() > deadline)
      throw new Error(`job ${id} still ${current.state} after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Resolves once `check` holds (polled every 50 ms); throws after `timeoutMs`. */
export async function until(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
