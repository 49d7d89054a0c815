/**
 * `GET url` back to back on one keep-alive connection, timed in a worker thread of its own: the bench's main
 * thread is often busy generating the load (encoding megabytes of audio, sending thousands of frames), and a
 * probe sharing that thread would time the bench's own stalls instead of the service's.
 */
import { Worker } from 'node:worker_threads'

export interface LatencyResult {
  requests: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  /** Answers other than 200 (and connection errors, as status 0). */
  failures: number
}

// Plain JavaScript (node:http only), so the worker needs no TypeScript loader.
const PROBE = `
const http = require('node:http')
const { parentPort, workerData } = require('node:worker_threads')
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const times = []
let failures = 0
let stopped = false
parentPort.once('message', () => { stopped = true })
;(async () => {
  while (!stopped) {
    const start = performance.now()
    const status = await new Promise((resolve) => {
      const request = http.get(workerData.url, { agent, timeout: 120000 }, (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode || 0))
        response.on('error', () => resolve(0))
      })
      request.on('timeout', () => request.destroy())
      request.on('error', () => resolve(0))
    })
    if (status === 200) times.push(performance.now() - start)
    else failures++
  }
  agent.destroy()
  parentPort.postMessage({ times, failures })
})()
`

/** Starts probing `url` now; `stop()` ends it and gives the figures. */
export function startHealthProbe(url: string): { stop(): Promise<LatencyResult> } {
  const worker = new Worker(PROBE, { eval: true, workerData: { url } })
  const done = new Promise<{ times: number[]; failures: number }>((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  return {
    async stop() {
      worker.postMessage('stop')
      const { times, failures } = await done
      await worker.terminate()
      times.sort((a, b) => a - b)
      const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? Number.NaN
      return {
        requests: times.length,
        p50Ms: at(0.5),
        p99Ms: at(0.99),
        maxMs: times.at(-1) ?? Number.NaN,
        failures,
      }
    },
  }
}

/** Probes `url` for `seconds` (see startHealthProbe). */
export async function probeLatency(url: string, seconds: number): Promise<LatencyResult> {
  const probe = startHealthProbe(url)
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
  const result = await probe.stop()
  if (result.failures > 0) throw new Error(`${url}: ${result.failures} requests failed`)
  return result
}
