/**
 * Section `busy-neighbours`: what the engine hosts' nice level (lib/thread-priority.ts) costs a person who
 * dictates while other programs keep the cores busy, and what it buys the API when dictum's own engines do.
 * One `dictum serve` (pocketsphinx, 2 slots), whose engine hosts run at its own level; after a warm-up, the
 * hosts are set to each level in turn (nice levels above the service's; the service stays where it is),
 * rounds interleaved:
 * - a dictation (`POST /v1/transcribe` of jfk.wav, 11 s) with nothing else running, and beside one busy
 *   program per core at the service's nice level (a compiler, a browser tab);
 * - `/v1/health` p99 while two transcription streams keep both cores busy (the health-under-load section).
 * Setting a host to a level below the one dictum gave it needs root (CAP_SYS_NICE): without it, the levels
 * under the current one are skipped.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import os, { loadavg } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { audioFixturesDir, referenceClips } from '../test/helpers/fixtures.ts'
import { startChildServer } from './lib/child-server.ts'
import { probeLatency } from './lib/health-probe.ts'
import { median, round } from './lib/load.ts'
import { childrenOf } from './lib/proc.ts'

/** Nice levels above the service's to try (`BUSY_LEVELS=3,0` for some). */
const LEVELS = (process.env.BUSY_LEVELS ?? '10,5,3,0').split(',').map(Number)
const ROUNDS = 3
const JFK = path.join(audioFixturesDir, 'jfk.wav')

async function transcribe(port: number, file: string): Promise<number> {
  const start = performance.now()
  const response = await fetch(`http://127.0.0.1:${port}/v1/transcribe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path: file }),
  })
  if (response.status !== 200)
    throw new Error(`transcribe answered ${response.status}: ${await response.text()}`)
  await response.arrayBuffer()
  return performance.now() - start
}

/** Sets every thread of each host to `nice`; false when not permitted. */
function setHostsNice(hosts: number[], nice: number): boolean {
  try {
    for (const host of hosts)
      for (const tid of readdirSync(`/proc/${host}/task`)) os.setPriority(Number(tid), nice)
    return true
  } catch {
    return false
  }
}

function busyLoops(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  )
}

async function withBusyNeighbours<T>(work: () => Promise<T>): Promise<T> {
  const loops = busyLoops(os.availableParallelism())
  try {
    await new Promise((r) => setTimeout(r, 300))
    return await work()
  } finally {
    for (const loop of loops) loop.kill('SIGKILL')
  }
}

async function healthWhileTranscribing(port: number): Promise<number> {
  const files = referenceClips()
  let stop = false
  const loop = async (order: string[]) => {
    for (let i = 0; !stop; i++) await transcribe(port, order[i % order.length] as string)
  }
  const streams = [loop(files), loop(files.slice().reverse())]
  await new Promise((r) => setTimeout(r, 1000))
  const busy = await probeLatency(`http://127.0.0.1:${port}/v1/health`, 4)
  stop = true
  await Promise.all(streams)
  return busy.p99Ms
}

export async function benchBusyNeighbours(): Promise<Record<string, number | string>> {
  const config = { speech: { engine: 'pocketsphinx', concurrency: 2 }, plugins: [] }
  const server = await startChildServer('dictum', { DICTUM_BENCH_CONFIG: JSON.stringify(config) })
  try {
    const servicePid = server.process.pid as number
    const serviceNice = os.getPriority(servicePid)
    // Two at once, so that both hosts start; then each clip once.
    await Promise.all([transcribe(server.port, JFK), transcribe(server.port, JFK)])
    for (const clip of referenceClips()) await transcribe(server.port, clip)
    const hosts = childrenOf(servicePid)
    const figures: Record<string, { quiet: number[]; busy: number[]; health: number[] }> = {}
    const skipped: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      for (const level of LEVELS) {
        if (skipped.includes(level)) continue
        if (!setHostsNice(hosts, Math.min(19, serviceNice + level))) {
          skipped.push(level)
          continue
        }
        const f = figures[level] ?? { quiet: [], busy: [], health: [] }
        figures[level] = f
        f.quiet.push(await transcribe(server.port, JFK))
        f.busy.push(await withBusyNeighbours(() => transcribe(server.port, JFK)))
        f.health.push(await healthWhileTranscribing(server.port))
      }
    }
    const result: Record<string, number | string> = { 'engine hosts': hosts.length }
    for (const level of LEVELS) {
      const f = figures[level]
      if (!f) continue
      const quiet = median(f.quiet)
      const busy = median(f.busy)
      result[`hosts at +${level}: jfk.wav ms, quiet / beside ${os.availableParallelism()} busy programs`] =
        `${Math.round(quiet)} / ${Math.round(busy)} (${round(busy / quiet, 1)}×)`
      result[`hosts at +${level}: health p99 ms while transcribing on both cores`] = round(
        median(f.health),
        1,
      )
    }
    if (skipped.length > 0) result['levels skipped (needs root)'] = skipped.map((l) => `+${l}`).join(', ')
    result['load average'] = round(loadavg()[0] as number, 1)
    result.rounds = ROUNDS
    return result
  } finally {
    await server.stop()
  }
}
