/**
 * Section `startup`: how fast the installed package starts (lib/packed.ts), against `node -e 0` in the same
 * run. Measured: `dictum --version`, and the time from spawning `dictum serve` until it answers
 * `GET /v1/health`, against the same for a Fastify server with one route (servers/one-route.mjs: what any
 * Fastify service pays before it answers, the floor). Rounds alternate the commands.
 *
 * The rounds are starts after the first: before them, one `dictum serve` runs until it has written its
 * complete code cache (lib/bundle-loader.ts), as any service that ran once has, with its data folder (the
 * database made and migrated) that every round starts on again; that first start, without a cache or a
 * database, is reported on its own (one sample).
 *
 * Then what the first request of each route whose modules load after listening (http/warm-up.ts) pays,
 * each such request twice, the first against the second (target: the first at most ~50 ms slower): right
 * after the health answer (the warm-up has just started: the worst case) in half the serve rounds, and 1 s
 * after it (a person opening the page, a client connecting) in the others.
 */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { loadavg } from 'node:os'
import path from 'node:path'
import WebSocket from 'ws'
import { compileCacheDir, readCache } from '../lib/bundle-loader.ts'
import { freePort } from '../test/helpers/serve.ts'
import { median, round } from './lib/load.ts'
import { packedDictum } from './lib/packed.ts'

// 8 starts of each server (5 before), for a steadier median.
const ROUNDS = 16

export async function benchStartup(): Promise<Record<string, number | string>> {
  const packed = packedDictum()
  const { bin, dir, env } = packed
  try {
    const firstStart = await firstStartWritingCache(bin, dir, env)
    const node: number[] = []
    const version: number[] = []
    const serve: number[] = []
    const oneRoute: number[] = []
    const firsts: Record<string, { first: number[]; again: number[] }> = {}
    for (let i = 0; i < ROUNDS; i++) {
      node.push(await timed(process.execPath, ['-e', '0']))
      version.push(await timed(process.execPath, [bin, '--version'], env))
      const pauseMs = i % 4 === 2 ? 1000 : 0
      if (i % 2 === 0) serve.push(await untilHealthy(bin, path.join(dir, 'data'), env, firsts, pauseMs))
      else oneRoute.push(await untilOneRouteAnswers())
    }
    const nodeMs = median(node)
    const firstRequests = Object.fromEntries(
      Object.entries(firsts).map(([name, { first, again }]) => [
        `first ${name} ms, median (then again)`,
        `${round(median(first), 1)} (${round(median(again), 1)})`,
      ]),
    )
    return {
      'node -e 0 ms, median': round(nodeMs, 1),
      'dictum --version ms, median': round(median(version), 1),
      'dictum --version / node -e 0 (target <= 2.5)': round(median(version) / nodeMs, 2),
      'dictum serve until /v1/health answers ms, median': round(median(serve), 0),
      'dictum serve, its first start (no code cache yet), ms, one sample': round(firstStart, 0),
      'dictum serve ready / node -e 0 (target <= 3)': round(median(serve) / nodeMs, 1),
      'a one-route Fastify server until /v1/health answers ms, median': round(median(oneRoute), 0),
      'one-route Fastify ready / node -e 0 (the floor)': round(median(oneRoute) / nodeMs, 1),
      'dictum serve / one-route Fastify': round(median(serve) / median(oneRoute), 2),
      ...firstRequests,
      'load average': round(loadavg()[0]!, 1),
      rounds: ROUNDS,
    }
  } finally {
    packed.remove()
  }
}

/**
 * The first start of the installed package: `dictum serve` until it answers (returned), then until it has
 * written its complete code cache, as it does once its start is done.
 */
async function firstStartWritingCache(bin: string, dir: string, env: NodeJS.ProcessEnv): Promise<number> {
  const cacheDir = compileCacheDir(env) as string
  const complete = () =>
    existsSync(cacheDir) && readdirSync(cacheDir).some((f) => readCache(path.join(cacheDir, f))?.complete)
  return untilAnswers(
    (port) => [bin, 'serve', '--port', String(port), '--data-dir', path.join(dir, 'data')],
    { ...env, XDG_CONFIG_HOME: path.join(dir, 'data') },
    async () => {
      for (let i = 0; i < 300 && !complete(); i++) await new Promise((resolve) => setTimeout(resolve, 100))
      if (!complete()) throw new Error('dictum serve wrote no complete code cache within 30 s')
    },
  )
}

/** Milliseconds from spawn to exit (status 0 required). */
function timed(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore', env })
    child.once('error', reject)
    child.once('exit', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`${args.join(' ')}: exit ${code}`)),
    )
  })
}

/**
 * Milliseconds from spawning `dictum serve` until /v1/health answers 200; then the first requests of the
 * routes loaded after listening are timed into `firsts`, and the server is stopped.
 */
async function untilHealthy(
  bin: string,
  dataDir: string,
  env: NodeJS.ProcessEnv,
  firsts: Record<string, { first: number[]; again: number[] }>,
  pauseMs: number,
): Promise<number> {
  return untilAnswers(
    (port) => [bin, 'serve', '--port', String(port), '--data-dir', dataDir],
    // No config file: the built-in defaults, with this data folder.
    { ...env, XDG_CONFIG_HOME: dataDir },
    async (port) => {
      await new Promise((resolve) => setTimeout(resolve, pauseMs))
      await timeFirstRequests(port, firsts, pauseMs === 0 ? 'right after' : `${pauseMs / 1000} s after`)
    },
  )
}

/** Milliseconds from spawning the one-route Fastify server until /v1/health answers 200. */
function untilOneRouteAnswers(): Promise<number> {
  const script = path.join(import.meta.dirname, 'servers/one-route.mjs')
  return untilAnswers(
    (port) => [script, String(port)],
    process.env,
    async () => {},
  )
}

/**
 * Spawns `node ARGS(port)`, polls GET /v1/health every 5 ms until it answers 200, runs `then` and stops
 * the server, waiting for it to be gone (its engine processes with it): a server still shutting down, or
 * still loading the models its warm-up started, took CPU from the next round's `node -e 0` (~120 ms alone,
 * ~200 ms beside it), which made every ratio look better than it is.
 */
async function untilAnswers(
  args: (port: number) => string[],
  env: NodeJS.ProcessEnv,
  then: (port: number) => Promise<void>,
): Promise<number> {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, args(port), { stdio: 'ignore', env })
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args(port).join(' ')} exited with ${child.exitCode}`)
      const ok = await fetch(`http://127.0.0.1:${port}/v1/health`).then(
        (r) => r.ok,
        () => false,
      )
      if (ok) {
        const healthy = performance.now() - started
        await then(port)
        return healthy
      }
      if (performance.now() - started > 60_000) throw new Error('the server did not answer within 60 s')
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
  }
}

/** The routes whose modules load after listening: each request made twice. */
async function timeFirstRequests(
  port: number,
  firsts: Record<string, { first: number[]; again: number[] }>,
  when: string,
): Promise<void> {
  const base = `http://127.0.0.1:${port}`
  const requests: Record<string, () => Promise<unknown>> = {
    'GET /v1/openapi.json': () => fetchOk(`${base}/v1/openapi.json`),
    'GET /v1/docs/ (Swagger UI)': () => fetchOk(`${base}/v1/docs/`),
    'GET / (web app)': () => fetchOk(`${base}/`),
    'WebSocket /v1/realtime opened': () =>
      openSocket(`ws://127.0.0.1:${port}/v1/realtime?intent=transcription`),
  }
  for (const [name, request] of Object.entries(requests)) {
    const key = `${name}, ${when} the health answer,`
    firsts[key] ??= { first: [], again: [] }
    const times = firsts[key]
    for (const into of [times.first, times.again]) {
      const started = performance.now()
      await request()
      into.push(performance.now() - started)
    }
  }
}

async function fetchOk(url: string): Promise<void> {
  const response = await fetch(url)
  await response.arrayBuffer()
  if (!response.ok) throw new Error(`${url}: ${response.status}`)
}

/** Resolves once the session is created (its first event), then closes the socket. */
function openSocket(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url)
    socket.once('message', () => {
      socket.close()
      resolve()
    })
    socket.once('error', reject)
  })
}
