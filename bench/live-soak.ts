/**
 * `live-soak` (issue 28): 2, then 4 live sessions over /v1/realtime, each pacing the repo's clips in real
 * time (100 ms appends, a commit after each clip, 0.5 s of silence between) for `DICTUM_BENCH_SOAK_SECONDS`
 * (default 600), against one `dictum serve` with pocketsphinx. Reported per run: the engine hosts' resident
 * memory (sum) after the first minute and its highest after that (flat: the two agree), every committed item
 * and how it ended (completed, failed, or nothing: the last must be 0), commit-to-completed p50/p99, and the
 * service's and hosts' memory 40 s after the sessions closed (idle stream hosts stop after 30 s).
 *
 * Also reported: the engine hosts' CPU seconds per second of audio the sessions sent, the sessions the
 * service closed for falling behind (`session_backlog`), and the load average. A live session needs its
 * share of CPU in real time (pocketsphinx: a live pass plus the final pass, ~0.4 CPU s per audio s on a
 * busy 2-core machine): when `sessions × that` exceeds the CPU the machine can spare, the items wait, the
 * backlog passes `realtime.maxBacklogSeconds`, the session is closed and its waiting items end `failed`.
 * That is the service's bound working, not a hang; the CPU figure and the load average tell the two apart.
 */
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import WebSocket from 'ws'
import { AudioDecoder } from '../audio/index.ts'
import { floatToPcm16 } from '../audio/pcm-convert.ts'
import { referenceTranscripts } from '../test/helpers/fixtures.ts'
import { startChildServer } from './lib/child-server.ts'
import { round } from './lib/load.ts'
import { childrenOf, rssMb } from './lib/proc.ts'

const RATE = 16000
const CHUNK_BYTES = (RATE / 10) * 2

function hostsRssMb(serverPid: number): number {
  return childrenOf(serverPid).reduce((sum, pid) => sum + rssMb(pid), 0)
}

/** CPU seconds (user + system) a process has used so far, 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    // After the command (which may hold spaces): the state, then utime and stime 11 and 12 fields on.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/** Each engine host's CPU seconds, the highest seen per pid (a host stopped meanwhile keeps its last). */
function sampleHostsCpu(serverPid: number, seen: Map<number, number>): void {
  for (const pid of childrenOf(serverPid)) seen.set(pid, Math.max(seen.get(pid) ?? 0, cpuSeconds(pid)))
}

interface Items {
  committed: Map<string, number>
  completed: number
  failed: number
  latenciesMs: number[]
  /** Seconds of audio the sessions sent. */
  audioSeconds: number
  /** Sessions the service closed for falling behind (`session_backlog`). */
  backlogClosed: number
}

async function session(port: number, clips: Uint8Array[], until: number, items: Items): Promise<void> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime?intent=transcription&app=soak`)
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
  })
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  let sentAt = 0
  /** This session's committed items still waiting for their last event. */
  const mine = new Set<string>()
  socket.on('message', (data) => {
    const event = JSON.parse(data.toString()) as { type: string; item_id?: string; error?: unknown }
    const id = event.item_id ?? ''
    if (event.type === 'input_audio_buffer.committed') {
      items.committed.set(id, sentAt)
      mine.add(id)
    } else if (/^conversation\.item\.input_audio_transcription\.(completed|failed)$/.test(event.type))
      mine.delete(id)
    if (event.type === 'input_audio_buffer.committed') return
    if (event.type === 'conversation.item.input_audio_transcription.completed') {
      items.completed++
      items.latenciesMs.push(performance.now() - (items.committed.get(id) ?? sentAt))
    } else if (event.type === 'conversation.item.input_audio_transcription.failed') {
      items.failed++
      if (items.failed === 1)
        process.stderr.write(`live-soak: first failure ${JSON.stringify(event.error)}\n`)
    } else if (event.type === 'error') {
      const error = event.error as { code?: string; message?: string }
      // The warning before the bound says "the session is closed past"; the closing one "is closed.".
      if (error.code === 'session_backlog' && / closed\.$/.test(error.message ?? '')) items.backlogClosed++
      process.stderr.write(`live-soak: ${JSON.stringify(event.error)}\n`)
    }
  })
  socket.send(
    JSON.stringify({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: { input: { format: { type: 'audio/pcm', rate: RATE }, turn_detection: null } },
      },
    }),
  )
  const silence = new Uint8Array(RATE) // 0.5 s
  let clock = performance.now()
  for (let i = 0; performance.now() < until && socket.readyState === socket.OPEN; i++) {
    const pcm = clips[i % clips.length] as Uint8Array
    for (const audio of [pcm, silence]) {
      for (let at = 0; at < audio.length; at += CHUNK_BYTES) {
        clock += 100
        const wait = clock - performance.now()
        if (wait > 0) await sleep(wait)
        if (socket.readyState !== socket.OPEN) break
        socket.send(
          JSON.stringify({
            type: 'input_audio_buffer.append',
            audio: Buffer.from(audio.subarray(at, at + CHUNK_BYTES)).toString('base64'),
          }),
        )
        items.audioSeconds += Math.min(CHUNK_BYTES, audio.length - at) / 2 / RATE
      }
      if (audio === pcm && socket.readyState === socket.OPEN) {
        sentAt = performance.now()
        socket.send(JSON.stringify({ type: 'input_audio_buffer.commit' }))
      }
    }
  }
  // The client stays until every item it committed has had its last event (or 120 s), then leaves.
  const settledBy = performance.now() + 120_000
  while (socket.readyState === socket.OPEN && performance.now() < settledBy && mine.size > 0) await sleep(200)
  socket.close(1000)
  await closed
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number
}

async function loadClips(): Promise<Uint8Array[]> {
  const decoder = new AudioDecoder({ maxSeconds: 120 })
  try {
    const clips: Uint8Array[] = []
    for (const { path } of referenceTranscripts()) {
      const samples = await decoder.decode({ kind: 'file', path })
      if (samples.length / RATE <= 20) clips.push(floatToPcm16(samples))
    }
    return clips
  } finally {
    await decoder.close()
  }
}

export async function benchLiveSoak(): Promise<Record<string, number | string>> {
  const seconds = Number(process.env.DICTUM_BENCH_SOAK_SECONDS ?? 600)
  const clips = await loadClips()
  const figures: Record<string, number | string> = { 'seconds per run': seconds }
  // DICTUM_BENCH_SOAK_SESSIONS: the runs' session counts (default "2,4").
  const runs = (process.env.DICTUM_BENCH_SOAK_SESSIONS ?? '2,4').split(',').map(Number)
  for (const sessions of runs) {
    const config = { speech: { engine: 'pocketsphinx' }, realtime: { maxSessions: 32 }, plugins: [] }
    const server = await startChildServer('dictum', { DICTUM_BENCH_CONFIG: JSON.stringify(config) })
    const pid = server.process.pid as number
    try {
      const serverBefore = rssMb(pid)
      const items: Items = {
        committed: new Map(),
        completed: 0,
        failed: 0,
        latenciesMs: [],
        audioSeconds: 0,
        backlogClosed: 0,
      }
      const loadBefore = loadavg()[0] as number
      const hostsCpu = new Map<number, number>()
      sampleHostsCpu(pid, hostsCpu)
      const cpuBefore = new Map(hostsCpu)
      const started = performance.now()
      const samples: { at: number; hosts: number; server: number }[] = []
      const sampler = setInterval(() => {
        samples.push({ at: performance.now() - started, hosts: hostsRssMb(pid), server: rssMb(pid) })
        sampleHostsCpu(pid, hostsCpu)
      }, 2000)
      await Promise.all(
        Array.from({ length: sessions }, (_, i) =>
          session(server.port, [...clips.slice(i), ...clips.slice(0, i)], started + seconds * 1000, items),
        ),
      )
      clearInterval(sampler)
      sampleHostsCpu(pid, hostsCpu)
      const loadAfter = loadavg()[0] as number
      let hostsCpuSeconds = 0
      for (const [host, seconds] of hostsCpu) hostsCpuSeconds += seconds - (cpuBefore.get(host) ?? 0)
      await sleep(40_000)
      const afterMinute = samples.filter((s) => s.at >= Math.min(60_000, (seconds * 1000) / 2))
      const first = afterMinute[0]
      const ended = items.completed + items.failed
      const label = `${sessions} sessions`
      // Sessions closed early (backlog) can end before the first minute: then there is no "after" figure.
      const lastAt = round((samples.at(-1)?.at ?? 0) / 1000, 0)
      figures[
        first
          ? `${label}: engine hosts MB at ${round(first.at / 1000, 0)} s / highest after / 40 s after close`
          : `${label}: engine hosts MB highest (sessions ended at ${lastAt} s) / 40 s after close`
      ] = first
        ? `${round(first.hosts, 0)} / ${round(Math.max(...afterMinute.map((s) => s.hosts)), 0)} / ${round(hostsRssMb(pid), 0)}`
        : `${round(Math.max(0, ...samples.map((s) => s.hosts)), 0)} / ${round(hostsRssMb(pid), 0)}`
      figures[`${label}: service MB before / highest / 40 s after close`] =
        `${round(serverBefore, 0)} / ${round(Math.max(...samples.map((s) => s.server)), 0)} / ${round(rssMb(pid), 0)}`
      figures[`${label}: items committed / completed / failed / without a last event`] =
        `${items.committed.size} / ${items.completed} / ${items.failed} / ${items.committed.size - ended}`
      figures[`${label}: sessions closed for backlog`] = items.backlogClosed
      // More than the machine's cores: hosts were stopped and started again (idle, crashed, over memory).
      figures[`${label}: engine host processes seen`] = hostsCpu.size
      figures[`${label}: engine hosts CPU s per audio s sent (${round(items.audioSeconds, 0)} s)`] = round(
        hostsCpuSeconds / items.audioSeconds,
        2,
      )
      figures[`${label}: load average (1 min) before / after, 2 cores`] =
        `${round(loadBefore, 1)} / ${round(loadAfter, 1)}`
      figures[`${label}: commit to completed p50 / p99 ms`] =
        `${round(percentile(items.latenciesMs, 50), 0)} / ${round(percentile(items.latenciesMs, 99), 0)}`
    } finally {
      await server.stop()
    }
  }
  return figures
}
