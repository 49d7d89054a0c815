/**
 * AI post-processing benchmarks, side by side in one run:
 * - the local `rules` provider's throughput (bench/rules.ts);
 * - what dictum adds to an OpenAI-compatible provider: POST /v1/postprocess through dictum (its own process,
 *   `ai.provider: openai-compatible` pointed at a local mock of the chat-completions API) against a direct
 *   POST of the same chat-completions body to the same mock. Mean latency with one client (the added
 *   milliseconds per request) and throughput with 10 connections, interleaved rounds, medians.
 */
import autocannon from 'autocannon'
import type { Test } from 'tap'
import { startOpenAiServer } from '../test/helpers/vendor-servers/openai.ts'
import { startChildServer } from './lib/child-server.ts'
import { median, round } from './lib/load.ts'
import { benchRules } from './rules.ts'

const TEXT =
  'um so i was thinking we could uh move the meeting to thursday comma and invite the whole team question mark'

interface Target {
  name: string
  url: string
  body: string
  headers: Record<string, string>
}

/** The mock server helper closes itself through a tap-like teardown; the bench collects and runs them. */
function teardowns(): { t: Test; close(): Promise<void> } {
  const closers: (() => unknown)[] = []
  const t = { teardown: (fn: () => unknown) => closers.push(fn) } as unknown as Test
  return { t, close: async () => void (await Promise.all(closers.map((fn) => fn()))) }
}

async function post(target: Target): Promise<void> {
  const response = await fetch(target.url, { method: 'POST', headers: target.headers, body: target.body })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`${target.name} answered ${response.status}: ${text}`)
}

/** Mean milliseconds per request, one request at a time. */
async function meanLatency(target: Target, requests: number): Promise<number> {
  const start = performance.now()
  for (let i = 0; i < requests; i++) await post(target)
  return (performance.now() - start) / requests
}

async function throughput(target: Target, seconds: number, connections: number): Promise<number> {
  const result = await autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body: target.body,
    connections,
    duration: seconds,
    pipelining: 1,
  })
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${target.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
  return result.requests.average
}

export async function benchPostprocess(
  rounds = 3,
  latencyRequests = 200,
  seconds = 3,
): Promise<Record<string, number | string>> {
  const rules = await benchRules()
  const owned = teardowns()
  const mock = await startOpenAiServer(owned.t, { apiKey: 'sk-bench-local' })
  const ai = {
    provider: 'openai-compatible',
    providers: {
      'openai-compatible': { baseUrl: `${mock.url}/v1`, apiKey: 'sk-bench-local', model: 'gpt-4o-mini' },
    },
  }
  const dictum = await startChildServer('dictum', { DICTUM_BENCH_CONFIG: JSON.stringify({ ai }) })
  try {
    const json = { 'content-type': 'application/json' }
    const viaDictum: Target = {
      name: 'dictum /v1/postprocess',
      url: `http://127.0.0.1:${dictum.port}/v1/postprocess`,
      body: JSON.stringify({ text: TEXT }),
      headers: json,
    }
    await post(viaDictum)
    // Exactly what dictum sent upstream (prompt, model, options), replayed straight at the mock.
    const sent = mock.requests.at(-1)!
    const direct: Target = {
      name: 'mock /v1/chat/completions',
      url: `${mock.url}/v1/chat/completions`,
      body: sent.rawBody,
      headers: { ...json, authorization: 'Bearer sk-bench-local' },
    }
    return { ...rules, ...(await compare(viaDictum, direct, { rounds, latencyRequests, seconds }, mock)) }
  } finally {
    await dictum.stop()
    await owned.close()
  }
}

async function compare(
  viaDictum: Target,
  direct: Target,
  options: { rounds: number; latencyRequests: number; seconds: number },
  mock: { requests: unknown[] },
): Promise<Record<string, number>> {
  await meanLatency(viaDictum, 50)
  await meanLatency(direct, 50)
  const latency = { dictum: [] as number[], direct: [] as number[] }
  const rps = { dictum: [] as number[], direct: [] as number[] }
  for (let r = 0; r < options.rounds; r++) {
    // Alternate which side goes first, so warm-up and background load fall on both.
    const order = r % 2 === 0 ? (['dictum', 'direct'] as const) : (['direct', 'dictum'] as const)
    for (const side of order) {
      const target = side === 'dictum' ? viaDictum : direct
      latency[side].push(await meanLatency(target, options.latencyRequests))
      rps[side].push(await throughput(target, options.seconds, 10))
      mock.requests.length = 0
    }
  }
  const ms = { dictum: median(latency.dictum), direct: median(latency.direct) }
  const perSecond = { dictum: median(rps.dictum), direct: median(rps.direct) }
  return {
    'openai-compatible via dictum: mean ms per request (1 client)': round(ms.dictum, 2),
    'openai-compatible direct to the same server: mean ms per request (1 client)': round(ms.direct, 2),
    'dictum adds ms per request (median of rounds)': round(ms.dictum - ms.direct, 2),
    'latency ratio dictum / direct': round(ms.dictum / ms.direct, 2),
    'via dictum req/s (10 connections)': Math.round(perSecond.dictum),
    'direct req/s (10 connections)': Math.round(perSecond.direct),
    'throughput ratio dictum / direct': round(perSecond.dictum / perSecond.direct, 2),
  }
}
