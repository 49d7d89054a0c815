/**
 * Transcription benchmarks (issue 3), each measured side by side in one run:
 * - p99 latency of /v1/health while transcriptions run back to back on both cores, against the same p99
 *   with no transcription running;
 * - a transcription through HTTP (decode, VAD, isolated engine, replacements) against calling the engine
 *   runner directly on the same clips' samples.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Value } from '@sinclair/typebox/value'
import { AudioDecoder } from '../audio/index.ts'
import { resolveConfig } from '../config/load.ts'
import { PocketsphinxOptionsSchema } from '../engines/pocketsphinx/options.ts'
import { createEngineRunner } from '../kernel/engine-runner/index.ts'
import { buildApp } from '../server/app.ts'
import { ConfigSchema } from '../server/config-schema.ts'
import { referenceClips } from '../test/helpers/fixtures.ts'
import { startChildServer } from './lib/child-server.ts'
import { probeLatency } from './lib/health-probe.ts'
import { load, median, round } from './lib/load.ts'

const ROOT = path.resolve(import.meta.dirname, '..')

/** A stop condition that lets a loop run `n` times (warm-up). */
function times(n: number): () => boolean {
  let runs = 0
  return () => runs++ >= n
}

async function transcribeLoop(port: number, files: string[], until: () => boolean): Promise<number> {
  let done = 0
  for (let i = 0; !until(); i++) {
    const response = await fetch(`http://127.0.0.1:${port}/v1/transcribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: files[i % files.length] }),
    })
    if (response.status !== 200)
      throw new Error(`transcribe answered ${response.status}: ${await response.text()}`)
    await response.arrayBuffer()
    done++
  }
  return done
}

/**
 * /v1/health with and without two transcription streams keeping both cores busy: throughput under
 * autocannon (4 connections), then latency timed one request at a time (sub-millisecond).
 */
export async function benchHealthUnderLoad(seconds = 6): Promise<Record<string, number | string>> {
  const config = { speech: { engine: 'pocketsphinx', concurrency: 2 }, plugins: [] }
  const server = await startChildServer('dictum', { DICTUM_BENCH_CONFIG: JSON.stringify(config) })
  try {
    const files = referenceClips()
    await transcribeLoop(server.port, files, times(2))
    const health = `http://127.0.0.1:${server.port}/v1/health`
    const idle = await probeLatency(health, seconds)
    let stop = false
    const streams = [
      transcribeLoop(server.port, files, () => stop),
      transcribeLoop(server.port, files.slice().reverse(), () => stop),
    ]
    await new Promise((r) => setTimeout(r, 1000))
    const busyLoad = await load(health, { seconds, connections: 4 })
    const busy = await probeLatency(health, seconds)
    stop = true
    const transcriptions = (await Promise.all(streams)).reduce((a, b) => a + b, 0)
    return {
      'health p99 ms, idle': round(idle.p99Ms, 2),
      'health p99 ms, while transcribing on both cores (target < 20)': round(busy.p99Ms, 2),
      'health max ms, while transcribing': round(busy.maxMs, 2),
      'health requests timed (idle / while transcribing)': `${idle.requests} / ${busy.requests}`,
      'health req/s while transcribing (autocannon, 4 connections)': Math.round(busyLoad.requestsPerSecond),
      'transcriptions completed during the busy window': transcriptions,
    }
  } finally {
    await server.stop()
  }
}

/** Total time for the clips through HTTP vs the engine runner directly (same samples, interleaved rounds). */
export async function benchHttpVsDirect(rounds = 3): Promise<Record<string, number>> {
  const files = referenceClips()
  const decoder = new AudioDecoder({ maxSeconds: 3600 })
  const samples = await Promise.all(files.map((file) => decoder.decode({ kind: 'file', path: file })))
  await decoder.close()
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dictum-bench-'))
  const app = await buildApp(
    resolveConfig(ConfigSchema, { dataDir, speech: { engine: 'pocketsphinx' }, log: { level: 'warn' } }),
    { logger: false },
  )
  await app.listen({ host: '127.0.0.1', port: 0 })
  const port = (app.server.address() as { port: number }).port
  const runner = createEngineRunner({
    engineId: 'pocketsphinx',
    moduleSource: path.join(ROOT, 'engines/pocketsphinx/index.ts'),
    isolation: 'process',
    context: {
      options: Value.Default(PocketsphinxOptionsSchema, {}),
      dataDir,
      modelsDir: dataDir,
    },
    concurrency: 1,
    requestTimeoutMs: 300_000,
    loadTimeoutMs: 120_000,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  })
  try {
    await runner.load()
    await transcribeLoop(port, files, times(1))
    const http: number[] = []
    const direct: number[] = []
    for (let r = 0; r < rounds; r++) {
      let start = performance.now()
      for (const file of files) {
        const res = await fetch(`http://127.0.0.1:${port}/v1/transcribe`, {
          method: 'POST',
          headers: { 'content-type': 'audio/wav' },
          body: readFileSync(file),
        })
        await res.json()
      }
      http.push(performance.now() - start)
      start = performance.now()
      for (const s of samples) await runner.transcribe({ samples: s, customWords: [] })
      direct.push(performance.now() - start)
    }
    const audioSeconds = samples.reduce((a, s) => a + s.length, 0) / 16000
    return {
      'clips (s of audio)': round(audioSeconds, 1),
      'through HTTP, ms per round (median)': Math.round(median(http)),
      'engine runner directly, ms per round (median)': Math.round(median(direct)),
      'HTTP / direct (target <= 1.10)': round(median(http) / median(direct)),
    }
  } finally {
    await runner.close()
    await app.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
