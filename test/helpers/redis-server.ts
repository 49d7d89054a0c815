/**
 * A real `redis-server` for tests and benches (Debian's 7.0, installed by scripts/setup.sh): on a free loopback
 * port, its files in a temp folder, stopped (and the folder removed) when done. Nothing else starts Redis,
 * in CI or here.
 *
 * Persistence is set so that "Redis restarted → nothing lost" means something: the append-only file is on
 * and synced on every write (`appendfsync always`), so even a SIGKILL loses no write Redis acknowledged, and
 * snapshots are off (`save ""`), so the AOF is the only thing a restart loads. `noeviction`, as BullMQ
 * requires: Redis refuses writes when full instead of dropping queue keys.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from './serve.ts'

export interface TestRedis {
  readonly port: number
  /** `redis://127.0.0.1:<port>` */
  readonly url: string
  /** Its working folder (the append-only files). */
  readonly dir: string
  /** Whether the server process is running. */
  readonly running: boolean
  /** Stops the server: SIGTERM (a clean shutdown) or SIGKILL (a crash); resolves once it has exited. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>
  /** Starts it again on the same port and folder (what it had written is loaded back). */
  start(): Promise<void>
  /** Stops it and removes its folder. */
  close(): Promise<void>
}

const READY_TIMEOUT_MS = 10_000

export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-redis-'))
  const port = await freePort()
  let child: ChildProcess | null = null

  const start = async () => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--maxmemory-policy',
      'noeviction',
      '--daemonize',
      'no',
      '--logfile',
      '',
    ]
    const started = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const keep = (text: string) => {
      output = (output + text).slice(-4000)
    }
    started.stdout?.setEncoding('utf8').on('data', keep)
    started.stderr?.setEncoding('utf8').on('data', keep)
    child = started
    await untilReady(port, started, () => output)
  }

  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') => {
    const running = child
    child = null
    if (!running || running.exitCode !== null || running.signalCode !== null) return
    const exited = once(running, 'exit')
    running.kill(signal)
    await exited
  }

  // If the test process ends without closing it (a failed run, a killed tap), the server goes with it.
  const onExit = () => child?.kill('SIGKILL')
  process.once('exit', onExit)
  await start()
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    get running() {
      return child !== null && child.exitCode === null && child.signalCode === null
    },
    stop,
    start,
    async close() {
      process.off('exit', onExit)
      await stop('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Resolves once the server answers PING; rejects (with its output) if it exits first or takes too long. */
async function untilReady(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const started = performance.now()
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`redis-server exited (${child.exitCode ?? child.signalCode}): ${output()}`)
    if (await pings(port)) return
    if (performance.now() - started > READY_TIMEOUT_MS) {
      child.kill('SIGKILL')
      throw new Error(`redis-server did not answer within ${READY_TIMEOUT_MS / 1000} s: ${output()}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' })
    let answer = ''
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once('error', () => done(false))
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.setEncoding('utf8').on('data', (text: string) => {
      answer += text
      // "-LOADING" while the AOF is read back: not ready yet.
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'))
    })
  })
}
