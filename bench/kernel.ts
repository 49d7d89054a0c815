/**
 * Kernel benchmarks (issue 2): requests per second of /v1/health and GET /v1/dictionary/custom-words against
 * a bare Fastify hello-world measured in the same run (rounds interleaved, medians compared), and the time to
 * read the newest 1000 of 100 000 history rows.
 *
 * On the 2-core test machine the load generator and each server want a whole core, so these ratios swing with
 * where the scheduler puts them: the same build gave /v1/health 0.74 to 1.14 and custom-words 0.69 to 1.06
 * of hello-world over one session (hello-world itself 50k to 64k req/s). Run the section a few times
 * (`npm run bench -- kernel`) before reading much into one figure. Server CPU time per request, tried as a
 * steadier measure, moved as much (15.5 to 19.4 µs per hello-world request).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { HistoryService } from '../history/service.ts'
import { TABLES } from '../server/app.ts'
import { openDatabase } from '../storage/database.ts'
import { startChildServer } from './lib/child-server.ts'
import { load, median, round } from './lib/load.ts'

export async function benchThroughput(rounds = 5, seconds = 3): Promise<Record<string, number>> {
  const hello = await startChildServer('hello')
  const dictum = await startChildServer('dictum')
  const targets = {
    hello: `http://127.0.0.1:${hello.port}/`,
    helloWords: `http://127.0.0.1:${hello.port}/words`,
    health: `http://127.0.0.1:${dictum.port}/v1/health`,
    words: `http://127.0.0.1:${dictum.port}/v1/dictionary/custom-words`,
  }
  const rps: Record<keyof typeof targets, number[]> = { hello: [], helloWords: [], health: [], words: [] }
  try {
    // Warm-up: JIT and connection pools settle before anything is counted.
    for (const url of Object.values(targets)) await load(url, { seconds: 1 })
    for (let round = 0; round < rounds; round++) {
      for (const [name, url] of Object.entries(targets) as [keyof typeof targets, string][]) {
        rps[name].push((await load(url, { seconds })).requestsPerSecond)
      }
    }
  } finally {
    await Promise.all([hello.stop(), dictum.stop()])
  }
  const m = (name: keyof typeof targets) => median(rps[name])
  return {
    'hello-world req/s (median)': Math.round(m('hello')),
    '/v1/health req/s (median)': Math.round(m('health')),
    'GET /v1/dictionary/custom-words req/s (median, 20 words, 1033-byte body)': Math.round(m('words')),
    'bare Fastify sending the same 1033-byte body req/s (median)': Math.round(m('helloWords')),
    '/v1/health vs hello-world (target >= 0.85)': round(m('health') / m('hello')),
    'custom-words vs hello-world (target >= 0.85)': round(m('words') / m('hello')),
    'custom-words vs bare Fastify with the same body': round(m('words') / m('helloWords')),
  }
}

export async function benchHistory(rows = 100_000, reads = 50): Promise<Record<string, number>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-bench-history-'))
  const db = openDatabase({ dataDir: dir, features: TABLES })
  try {
    const history = new HistoryService({
      db,
      historySettings: () => ({
        enabled: true,
        maxEntries: rows + 1,
        recordTranscribe: false,
        keepAudio: false,
        audioRetentionDays: 0,
        audioMaxMb: 0,
      }),
    })
    const insert = db.prepare(
      `INSERT INTO history (id, timestamp_ms, raw_text, final_text, app_name, window_title, character_count,
        was_ai_processed, ai_processing_error) VALUES (?, ?, ?, ?, 'Editor', 'notes.md', ?, 0, NULL)`,
    )
    const text = 'the quick brown fox jumps over the lazy dog while dictating a fairly typical sentence'
    db.transaction(() => {
      for (let i = 0; i < rows; i++)
        insert.run(crypto.randomUUID(), 1_700_000_000_000 + i * 1000, text, text, text.length)
    })()
    const times: number[] = []
    for (let i = 0; i < reads; i++) {
      const start = performance.now()
      const { count } = history.list(1000)
      times.push(performance.now() - start)
      if (count !== 1000) throw new Error(`expected 1000 rows, got ${count}`)
    }
    return {
      'history: newest 1000 of 100000 rows, ms (median)': round(median(times), 2),
      'history: newest 1000 of 100000 rows, ms (max)': round(Math.max(...times), 2),
    }
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
