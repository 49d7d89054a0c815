/**
 * Part of section `abuse` (issue 28, items 1–4): a `dictum serve` process of the packed package, as installed
 * (pocketsphinx, Wyoming on), under each attack in turn, with `GET /v1/health` timed back to back while it
 * runs (target p99 < 50 ms) and the
 * resident memory of the service and of its engine-host processes sampled from /proc (peak while it runs,
 * and what is left 3 s after). Every attack is bounded in count and time, on loopback:
 * 1. two live sessions appending 60 s of speech each as fast as the socket takes it, committing every 10 s;
 * 2. big and many appends to one realtime session: 20 × 1 MB of speech, then 10,000 appends of 10 ms;
 * 3. one job whose glob is `/dir/*a*a*a*a*a*a*a*a*a*ab`, against a folder holding a file named with 40 `a`;
 * 4. a Wyoming client (60 KB pings, then 1 MB ones) and a realtime client (1 MB `event_id`s echoed back in
 *    `error` events) that never read, for at most 30 s.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import WebSocket from 'ws'
import { freePort, untilHealthy } from '../test/helpers/serve.ts'
import { clipPcmAt24k } from '../test/live/helpers.ts'
import { startHealthProbe } from './lib/health-probe.ts'
import { round } from './lib/load.ts'
import { packedDictum } from './lib/packed.ts'
import { childrenOf, rssMb } from './lib/proc.ts'

/** Longest any one attack runs before it is stopped. */
const ATTACK_SECONDS = 30
const MB = 1024 * 1024

interface Service {
  child: ChildProcess
  port: number
  wyomingPort: number
}

/** Samples the service's and its engine hosts' RSS every 250 ms until stopped: peaks in MB. */
function sampleMemory(pid: number) {
  const peak = { service: 0, hosts: 0, hostCount: 0 }
  const sample = () => {
    peak.service = Math.max(peak.service, rssMb(pid))
    const hosts = childrenOf(pid)
    peak.hosts = Math.max(
      peak.hosts,
      hosts.reduce((sum, host) => sum + rssMb(host), 0),
    )
    peak.hostCount = Math.max(peak.hostCount, hosts.length)
  }
  sample()
  const timer = setInterval(sample, 250)
  return {
    stop() {
      clearInterval(timer)
      sample()
      return peak
    },
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** CPU time (user + system) of a process so far, in clock ticks (1/100 s), from /proc. */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[11]) + Number(fields[12])
}

/**
 * Waits until the service is idle (under 5 % of a core over half a second, at most 20 s): after its first
 * answer it loads in the background what only some routes need (http/warm-up.ts), which is its start, not
 * what an attack costs.
 */
async function untilSettled(pid: number): Promise<void> {
  const deadline = performance.now() + 20_000
  let before = cpuTicks(pid)
  while (performance.now() < deadline) {
    await sleep(500)
    const now = cpuTicks(pid)
    if (now - before <= 2) return
    before = now
  }
}

function openRealtime(port: number): Promise<WebSocket> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime?intent=transcription&model=pocketsphinx`)
  socket.on('error', () => {})
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket))
    socket.once('error', reject)
  })
}

/** Waits until the socket has sent what it buffered down to `bytes`, or it closed. */
async function belowBuffered(socket: WebSocket, bytes: number): Promise<void> {
  while (socket.readyState === WebSocket.OPEN && socket.bufferedAmount > bytes) await sleep(10)
}

const append = (pcm: Buffer) =>
  JSON.stringify({ type: 'input_audio_buffer.append', audio: pcm.toString('base64') })
const MANUAL_TURNS = JSON.stringify({
  type: 'session.update',
  session: { type: 'transcription', audio: { input: { turn_detection: null } } },
})

/** Speech at 24 kHz PCM16, `seconds` long (the repo's clip repeated). */
function speech(seconds: number): Buffer {
  const clip = clipPcmAt24k('jfk.wav')
  const bytes = seconds * 24000 * 2
  return Buffer.concat(Array.from({ length: Math.ceil(bytes / clip.length) }, () => clip)).subarray(0, bytes)
}

async function liveSessionsFast(service: Service): Promise<string> {
  const audio = speech(60)
  const chunk = 4800 // 100 ms
  const session = async () => {
    const socket = await openRealtime(service.port)
    let completed = 0
    let closedBy = 'the client'
    socket.once('close', (code, reason) => {
      closedBy = `the server (${code} ${String(reason)})`
    })
    socket.on('message', (data) => {
      if (String(data).includes('"conversation.item.input_audio_transcription.completed"')) completed++
    })
    socket.send(MANUAL_TURNS)
    for (let at = 0; at < audio.length; at += chunk) {
      socket.send(append(audio.subarray(at, at + chunk)))
      if ((at / chunk) % 100 === 99) socket.send(JSON.stringify({ type: 'input_audio_buffer.commit' }))
      await belowBuffered(socket, MB)
    }
    socket.send(JSON.stringify({ type: 'input_audio_buffer.commit' }))
    const deadline = performance.now() + ATTACK_SECONDS * 1000
    while (completed < 6 && socket.readyState === WebSocket.OPEN && performance.now() < deadline)
      await sleep(100)
    // a close the server has begun (CLOSING) is told by its close event
    const closeBy = performance.now() + 2000
    while (socket.readyState === WebSocket.CLOSING && performance.now() < closeBy) await sleep(10)
    const result = `${completed} of 6 completed, closed by ${closedBy}`
    socket.terminate()
    return result
  }
  const done = await Promise.all([session(), session()])
  return `items ${done.join('; ')}`
}

async function bigAppends(service: Service): Promise<string> {
  const socket = await openRealtime(service.port)
  socket.send(MANUAL_TURNS)
  // 750,000 bytes of PCM are 1,000,000 of base64: one frame just under realtime.maxFrameBytes.
  const big = speech(16).subarray(0, 750_000)
  const deadline = performance.now() + ATTACK_SECONDS * 1000
  let sent = 0
  for (let i = 0; i < 20 && socket.readyState === WebSocket.OPEN && performance.now() < deadline; i++) {
    socket.send(append(big))
    sent++
    await belowBuffered(socket, 4 * MB)
  }
  const small = append(speech(1).subarray(0, 480))
  let smallSent = 0
  for (let i = 0; i < 10_000 && socket.readyState === WebSocket.OPEN && performance.now() < deadline; i++) {
    socket.send(small)
    smallSent++
    if (i % 100 === 99) await belowBuffered(socket, MB)
  }
  // The server's verdict on what it was sent: closed (and why), or still open 2 s on.
  const closed = await Promise.race([
    new Promise<string>((resolve) =>
      socket.once('close', (code, reason) => resolve(`${code} ${String(reason)}`)),
    ),
    sleep(2000).then(() => null),
  ])
  socket.terminate()
  return `${sent} × 1 MB and ${smallSent} × 10 ms appends sent; ${closed ? `closed by the server (${closed})` : 'still open'}`
}

async function catastrophicGlob(service: Service, dir: string): Promise<string> {
  const folder = path.join(dir, 'glob')
  mkdirSync(folder, { recursive: true })
  writeFileSync(path.join(folder, 'a'.repeat(40)), '')
  const started = performance.now()
  const status = await new Promise<number>((resolve) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port: service.port,
        method: 'POST',
        path: '/v1/jobs',
        headers: { 'content-type': 'application/json' },
        timeout: 120_000,
      },
      (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode ?? 0))
      },
    )
    request.on('timeout', () => request.destroy())
    request.on('error', () => resolve(0))
    request.end(JSON.stringify({ glob: `${folder}/*a*a*a*a*a*a*a*a*a*ab` }))
  })
  return `answered ${status || 'nothing'} in ${round((performance.now() - started) / 1000, 1)} s`
}

async function clientsThatNeverRead(service: Service): Promise<string> {
  const deadline = performance.now() + ATTACK_SECONDS * 1000
  const wyoming = async () => {
    const socket = net.connect(service.wyomingPort, '127.0.0.1')
    socket.on('error', () => {})
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.pause()
    let sent = 0
    const ping = (size: number) =>
      Buffer.from(`${JSON.stringify({ type: 'ping', data: { text: 'x'.repeat(size) } })}\n`)
    for (const [event, count] of [
      [ping(60_000), 1000],
      [ping(1_000_000), 200],
    ] as const) {
      for (let i = 0; i < count && !socket.destroyed && performance.now() < deadline; i++) {
        socket.write(event)
        sent += event.length
        // Past 8 MB waiting in this process, the server is no longer taking them.
        while (socket.writableLength > 8 * MB && !socket.destroyed && performance.now() < deadline)
          await sleep(50)
      }
    }
    const taken = sent - socket.writableLength
    socket.destroy()
    return `Wyoming: ${round(taken / MB, 0)} of ${round(sent / MB, 0)} MB taken`
  }
  const realtime = async () => {
    const socket = await openRealtime(service.port)
    socket.pause()
    const event = JSON.stringify({ type: 'no.such.event', event_id: 'e'.repeat(1_000_000) })
    let sent = 0
    for (let i = 0; i < 200 && socket.readyState === WebSocket.OPEN && performance.now() < deadline; i++) {
      socket.send(event)
      sent++
      while (
        socket.bufferedAmount > 8 * MB &&
        socket.readyState === WebSocket.OPEN &&
        performance.now() < deadline
      )
        await sleep(50)
    }
    const taken = sent - Math.ceil(socket.bufferedAmount / event.length)
    const open = socket.readyState === WebSocket.OPEN
    socket.terminate()
    return `realtime: ${taken} of ${sent} × 1 MB events taken, ${open ? 'still open' : 'closed by the server'}`
  }
  return (await Promise.all([wyoming(), realtime()])).join('; ')
}

async function startService(dir: string, bin: string): Promise<Service> {
  const [port, wyomingPort] = [await freePort(), await freePort()]
  const config = path.join(dir, 'config.json')
  writeFileSync(
    config,
    JSON.stringify({
      api: { port },
      dataDir: path.join(dir, 'data'),
      speech: { engine: 'pocketsphinx' },
      wyoming: { enabled: true, port: wyomingPort },
      log: { level: 'warn' },
    }),
  )
  const child = spawn(process.execPath, [bin, 'serve', '--config', config], {
    cwd: dir,
    stdio: 'ignore',
    env: { ...process.env, XDG_CONFIG_HOME: dir },
  })
  await untilHealthy(child, port)
  return { child, port, wyomingPort }
}

/**
 * DICTUM_BENCH_ABUSE_ONLY=<parts of names, comma-separated> runs only the attacks whose name contains one of
 * them (`live sessions,realtime appends`: items 1 and 2), to find the costly one.
 */
export function selected(name: string): boolean {
  const only = process.env.DICTUM_BENCH_ABUSE_ONLY
  return !only || only.split(',').some((part) => name.includes(part))
}

/** Figures for issue 28's items 1–4, each attack run once on a fresh service. */
export async function benchLiveAbuse(): Promise<Record<string, number | string>> {
  const attacks: Array<[string, (service: Service, dir: string) => Promise<string>]> = [
    ['1 live sessions appending speech fast', liveSessionsFast],
    ['2 big and many realtime appends', bigAppends],
    ['3 glob of ten *a against 40 a', catastrophicGlob],
    ['4 Wyoming and realtime clients that never read', clientsThatNeverRead],
  ]
  const figures: Record<string, number | string> = {}
  // The service as installed (compiled, no TypeScript loader): in a checkout, each worker thread first starts
  // tsx's loader thread, whose start-up on a core would be counted against the attack.
  const packed = packedDictum()
  try {
    for (const [name, attack] of attacks) {
      if (selected(name)) await runAttack(name, attack, packed.bin, figures)
    }
  } finally {
    packed.remove()
  }
  return figures
}

async function runAttack(
  name: string,
  attack: (service: Service, dir: string) => Promise<string>,
  bin: string,
  figures: Record<string, number | string>,
): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-bench-abuse-live-'))
  const service = await startService(dir, bin)
  const pid = service.child.pid!
  try {
    await untilSettled(pid)
    const before = rssMb(pid)
    const memory = sampleMemory(pid)
    const health = startHealthProbe(`http://127.0.0.1:${service.port}/v1/health`)
    const outcome = await attack(service, dir)
    const latency = await health.stop()
    const peak = memory.stop()
    await sleep(3000)
    const hostsAfter = childrenOf(pid).reduce((sum, host) => sum + rssMb(host), 0)
    figures[`item ${name}: health p99 ms (target < 50) / max / p50`] =
      `${round(latency.p99Ms, 1)} / ${round(latency.maxMs, 0)} / ${round(latency.p50Ms, 1)} (${latency.requests} requests${latency.failures ? `, ${latency.failures} failed` : ''})`
    figures[`item ${name}: service RSS MB before / peak / 3 s after`] =
      `${round(before, 0)} / ${round(peak.service, 0)} / ${round(rssMb(pid), 0)}`
    figures[`item ${name}: engine hosts RSS MB peak (all hosts) / 3 s after`] =
      `${round(peak.hosts, 0)} (${peak.hostCount} hosts) / ${round(hostsAfter, 0)}`
    figures[`item ${name}: outcome`] = outcome
  } finally {
    await stop(service.child)
    rmSync(dir, { recursive: true, force: true })
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000)
  await exited
  clearTimeout(killer)
}
