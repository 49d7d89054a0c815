/**
 * Load generation with autocannon (the load tool Fastify's own benchmarks use), and a latency probe with
 * sub-millisecond resolution (autocannon's latency histogram counts whole milliseconds).
 */
import http from 'node:http'
import { performance } from 'node:perf_hooks'
import autocannon from 'autocannon'

export interface LoadResult {
  requestsPerSecond: number
  p99Ms: number
  errors: number
  non2xx: number
}

export async function load(
  url: string,
  options: { seconds?: number; connections?: number } = {},
): Promise<LoadResult> {
  const result = await autocannon({
    url,
    connections: options.connections ?? 50,
    duration: options.seconds ?? 4,
    pipelining: 1,
  })
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  }
}

export interface LatencyResult {
  requests: number
  p50Ms: number
  p99Ms: number
  maxMs: number
}

/** One keep-alive connection sending GET `url` back to back for `seconds`, each response timed. */
export async function probeLatency(url: string, seconds: number): Promise<LatencyResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const times: number[] = []
  const end = performance.now() + seconds * 1000
  try {
    while (performance.now() < end) {
      const start = performance.now()
      const status = await new Promise<number>((resolve, reject) => {
        http
          .get(url, { agent }, (response) => {
            response.resume()
            response.on('end', () => resolve(response.statusCode ?? 0))
            response.on('error', reject)
          })
          .on('error', reject)
      })
      if (status !== 200) throw new Error(`${url} answered ${status}`)
      times.push(performance.now() - start)
    }
  } finally {
    agent.destroy()
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!
  return { requests: times.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: times[times.length - 1]! }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export function round(value: number, digits = 3): number {
  const f = 10 ** digits
  return Math.round(value * f) / f
}
