/**
 * Load generation with autocannon (the load tool Fastify's own benchmarks use). The latency probe with
 * sub-millisecond resolution (autocannon's histogram counts whole milliseconds) is in health-probe.ts.
 */
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

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export function round(value: number, digits = 3): number {
  const f = 10 ** digits
  return Math.round(value * f) / f
}
