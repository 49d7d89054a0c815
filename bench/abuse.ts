/**
 * Section `abuse` (issue 16): `GET /v1/health` latency of a `dictum serve` process (fixture engine) while the
 * worst inputs of issue 16 run against it, against the same latency idle, rounds interleaved in one run; and
 * the server's RSS before, at its peak and after. The attack, each kind a loop of its own (one request in
 * flight each), all at once:
 * - a 14 KB WAV claiming a 1 Hz sample rate (item 2), raw on /v1/transcribe;
 * - transcriptions of a 2000-word text through 1000 replacement rules with long multi-word and hyphenated
 *   triggers (items 1 and 4; the fixture engine is configured to say that text);
 * - 24 MB of nested JSON on /v1/transcribe (item 8);
 * - 24 MB `appName` on /v1/dictate (item 5), and lone surrogates in custom words (item 7);
 * - 10 uploads announcing 20 MB that send 4 MB and stall (item 6), held open for the whole round.
 * Then issue 28's attacks (abuse-live.ts), each on a service of its own.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { FIXTURE_ENGINE } from '../test/helpers/build.ts'
import {
  longReplacementRules,
  nestedJson,
  oneHertzWav,
  PUNCTUATED_TRIGGERS,
  shortWav,
} from '../test/helpers/hostile-inputs.ts'
import { freePort, untilHealthy } from '../test/helpers/serve.ts'
import { benchLiveAbuse, selected } from './abuse-live.ts'
import { probeLatency } from './lib/health-probe.ts'
import { median, round } from './lib/load.ts'

const ROOT = path.resolve(import.meta.dirname, '..')
const ROUNDS = 3
const SECONDS = 5
const STALLED_UPLOADS = 10

interface Attack {
  name: string
  send(port: number): Promise<number>
}

/** The server's resident set size and its peak so far, in MB (Linux /proc). */
function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN)
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
}

function post(port: number, url: string, contentType: string, body: Buffer | string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: url,
        headers: { 'content-type': contentType },
        agent: false,
      },
      (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode ?? 0))
      },
    )
    // The server may answer (413, 400) and close before the whole body is written.
    request.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? resolve(0) : reject(error),
    )
    request.end(body)
  })
}

function attacks(): Attack[] {
  const oneHertz = oneHertzWav()
  const wav = shortWav(0.5)
  const nested = Buffer.from(nestedJson(24_000_000))
  const hugeAppName = Buffer.from(
    JSON.stringify({ audioBase64: wav.toString('base64'), appName: 'x'.repeat(24_000_000) }),
  )
  const surrogates = JSON.stringify({ entries: [{ text: '\ud800' }, { text: 'ok', aliases: ['\udfff'] }] })
  return [
    { name: '1 Hz WAV', send: (port) => post(port, '/v1/transcribe', 'audio/wav', oneHertz) },
    {
      name: 'transcription through 1000 rules',
      send: (port) => post(port, '/v1/transcribe', 'audio/wav', wav),
    },
    { name: '24 MB nested JSON', send: (port) => post(port, '/v1/transcribe', 'application/json', nested) },
    { name: '24 MB appName', send: (port) => post(port, '/v1/dictate', 'application/json', hugeAppName) },
    {
      name: 'lone surrogates',
      send: (port) => post(port, '/v1/dictionary/custom-words', 'application/json', surrogates),
    },
  ]
}

/** Uploads that announce 20 MB, send 4 MB and then nothing; destroyed by the returned function. */
function stallUploads(port: number, count: number): () => void {
  const sockets: net.Socket[] = []
  const chunk = Buffer.alloc(4 * 1024 * 1024, 'a')
  for (let i = 0; i < count; i++) {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /v1/transcribe HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: audio/wav\r\nContent-Length: ${20 * 1024 * 1024}\r\n\r\n`,
      )
      socket.write(chunk)
    })
    socket.on('error', () => {})
    sockets.push(socket)
  }
  return () => {
    for (const socket of sockets) socket.destroy()
  }
}

/** Runs every attack in its own loop until `stop()`; resolves with the statuses each got. */
function runAttacks(port: number, list: Attack[]) {
  let stopped = false
  const statuses = new Map<string, Map<number, number>>()
  const loops = list.map(async (attack) => {
    const counts = new Map<number, number>()
    statuses.set(attack.name, counts)
    while (!stopped) {
      const status = await attack.send(port)
      counts.set(status, (counts.get(status) ?? 0) + 1)
    }
  })
  return {
    async stop() {
      stopped = true
      await Promise.all(loops)
      return statuses
    },
  }
}

async function startServe(dir: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort()
  const text = Array.from(
    { length: 2000 },
    (_, i) => ['alpha', 'bravo', 'e-mail', 'heard', 'wi-fi'][i % 5],
  ).join(' ')
  const rulesFile = path.join(dir, 'config.json')
  writeFileSync(
    rulesFile,
    JSON.stringify({
      api: { port },
      dataDir: path.join(dir, 'data'),
      plugins: [FIXTURE_ENGINE],
      speech: { engine: 'fixture-echo', engines: { 'fixture-echo': { text } } },
      log: { level: 'warn' },
    }),
  )
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/dictum.js'), 'serve', '--config', rulesFile], {
    cwd: ROOT,
    stdio: 'ignore',
    env: { ...process.env, XDG_CONFIG_HOME: dir },
  })
  await untilHealthy(child, port)
  return { child, port }
}

export async function benchAbuse(): Promise<Record<string, number | string>> {
  const inputs = attacks().some((attack) => selected(attack.name)) ? await benchInputs() : {}
  return { ...inputs, ...(await benchLiveAbuse()) }
}

/** Issue 16's hostile inputs, all at once, against the health route idle and under attack. */
async function benchInputs(): Promise<Record<string, number | string>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-bench-abuse-'))
  const { child, port } = await startServe(dir)
  try {
    const rules = [
      ...longReplacementRules(990, 20, 3),
      ...PUNCTUATED_TRIGGERS.map((trigger, i) => ({
        triggers: [trigger, `${trigger} hyphen`],
        replacement: `P${i}`,
      })),
    ]
    const stored = await post(
      port,
      '/v1/dictionary/replacements',
      'application/json',
      JSON.stringify({ mode: 'replace', entries: rules }),
    )
    if (stored !== 200) throw new Error(`storing 1000 rules answered ${stored}`)
    const list = attacks().filter((attack) => selected(attack.name))
    // Warm-up: every attack once, and the health route.
    for (const attack of list) await attack.send(port)
    const health = `http://127.0.0.1:${port}/v1/health`
    await probeLatency(health, 1)
    const before = rssOf(child.pid!)

    const idle: Array<{ p50: number; p99: number; max: number }> = []
    const busy: Array<{ p50: number; p99: number; max: number }> = []
    const totals = new Map<string, Map<number, number>>()
    for (let round = 0; round < ROUNDS; round++) {
      const quiet = await probeLatency(health, SECONDS)
      idle.push({ p50: quiet.p50Ms, p99: quiet.p99Ms, max: quiet.maxMs })
      const unstall = stallUploads(port, STALLED_UPLOADS)
      const attack = runAttacks(port, list)
      const loud = await probeLatency(health, SECONDS)
      busy.push({ p50: loud.p50Ms, p99: loud.p99Ms, max: loud.maxMs })
      unstall()
      for (const [name, counts] of await attack.stop()) {
        const total = totals.get(name) ?? new Map<number, number>()
        for (const [status, n] of counts) total.set(status, (total.get(status) ?? 0) + n)
        totals.set(name, total)
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const after = rssOf(child.pid!)
    const p99Idle = median(idle.map((r) => r.p99))
    const p99Busy = median(busy.map((r) => r.p99))
    const figures: Record<string, number | string> = {
      'health p50 ms, idle': round(median(idle.map((r) => r.p50)), 2),
      'health p99 ms, idle': round(p99Idle, 2),
      'health p50 ms, under attack': round(median(busy.map((r) => r.p50)), 2),
      'health p99 ms, under attack (target < 50)': round(p99Busy, 2),
      'health max ms, under attack (worst round)': round(Math.max(...busy.map((r) => r.max)), 1),
      'health p99 under attack / idle': round(p99Busy / p99Idle, 1),
      'server RSS MB before / peak / after': `${round(before.rss, 0)} / ${round(after.peak, 0)} / ${round(after.rss, 0)}`,
      rounds: `${ROUNDS} × ${SECONDS} s idle and under attack, interleaved`,
    }
    for (const [name, counts] of totals) {
      figures[`attack "${name}": answers`] = [...counts].map(([status, n]) => `${status}×${n}`).join(' ')
    }
    figures['stalled uploads held per round'] = STALLED_UPLOADS
    return figures
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(killer)
    }
    rmSync(dir, { recursive: true, force: true })
  }
}
