/**
 * The remote engine's overhead: the shared clips sent to dictum A (engine `remote` → dictum B) against the same
 * clips sent to dictum B directly (pocketsphinx), 4 requests in flight at a time, rounds alternating between
 * the two. Both servers run in their own processes as a user runs them; B keeps the default
 * `speech.concurrency` of 1, so its engine is the bottleneck either way and the figure is the cost of the
 * extra hop (upload re-encoded as WAV, A's decode and VAD, B's multipart parsing) under load.
 */
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { referenceClips } from '../test/engines/pocketsphinx/clips.ts'
import { type ChildServer, startChildServer } from './lib/child-server.ts'
import { median, round } from './lib/load.ts'

const IN_FLIGHT = 4

interface Clip {
  file: string
  bytes: Buffer
}

async function transcribe(port: number, clip: Clip): Promise<{ ms: number; text: string }> {
  const started = performance.now()
  const response = await fetch(`http://127.0.0.1:${port}/v1/transcribe`, {
    method: 'POST',
    headers: { 'content-type': 'audio/wav', 'x-filename': clip.file },
    body: clip.bytes,
  })
  const body = (await response.json()) as { text?: string; error?: string }
  if (!response.ok) throw new Error(`${clip.file}: HTTP ${response.status}: ${body.error}`)
  return { ms: performance.now() - started, text: body.text ?? '' }
}

/** Every clip once, IN_FLIGHT requests at a time; wall time of the round and each request's latency. */
async function runRound(port: number, clips: Clip[]) {
  const started = performance.now()
  const results: { ms: number; text: string }[] = new Array(clips.length)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < clips.length; i = next++) results[i] = await transcribe(port, clips[i]!)
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  return { wallMs: performance.now() - started, results }
}

export async function benchRemote(rounds = 3): Promise<Record<string, number | string>> {
  const clips = referenceClips().map((clip) => ({ file: clip.file, bytes: readFileSync(clip.path) }))
  const servers: ChildServer[] = []
  try {
    const b = await startChildServer('dictum', {
      DICTUM_BENCH_CONFIG: JSON.stringify({ speech: { engine: 'pocketsphinx' } }),
    })
    servers.push(b)
    const remote = { baseUrl: `http://127.0.0.1:${b.port}/v1` }
    const a = await startChildServer('dictum', {
      DICTUM_BENCH_CONFIG: JSON.stringify({ speech: { engine: 'remote', engines: { remote } } }),
    })
    servers.push(a)
    await runRound(b.port, clips.slice(0, 1))
    await runRound(a.port, clips.slice(0, 1))
    const direct: number[] = []
    const via: number[] = []
    const directLatency: number[] = []
    const viaLatency: number[] = []
    let same = 0
    for (let r = 0; r < rounds; r++) {
      const d = await runRound(b.port, clips)
      const v = await runRound(a.port, clips)
      direct.push(d.wallMs)
      via.push(v.wallMs)
      directLatency.push(...d.results.map((x) => x.ms))
      viaLatency.push(...v.results.map((x) => x.ms))
      same += d.results.filter((x, i) => x.text === v.results[i]!.text).length
    }
    return {
      clips: clips.length,
      inFlight: IN_FLIGHT,
      rounds,
      directRoundMs: Math.round(median(direct)),
      viaRemoteRoundMs: Math.round(median(via)),
      viaRemoteOverDirect: round(median(via) / median(direct)),
      directMedianLatencyMs: Math.round(median(directLatency)),
      viaRemoteMedianLatencyMs: Math.round(median(viaLatency)),
      overheadPerRequestMs: Math.round(median(viaLatency) - median(directLatency)),
      sameText: `${same} of ${clips.length * rounds}`,
    }
  } finally {
    await Promise.allSettled(servers.reverse().map((s) => s.stop()))
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await benchRemote()
  for (const [key, value] of Object.entries(figures)) process.stdout.write(`${key}: ${value}\n`)
}
