/**
 * Section `startup`: how fast the installed package starts (lib/packed.ts), against `node -e 0` in the same
 * run. Measured: `dictum --version`, and the time from spawning
 * `dictum serve` until it answers `GET /v1/health`. Rounds alternate the commands.
 */
import { spawn } from 'node:child_process'
import { loadavg } from 'node:os'
import path from 'node:path'
import { freePort } from '../test/helpers/serve.ts'
import { median, round } from './lib/load.ts'
import { packedDictum } from './lib/packed.ts'

const ROUNDS = 10

export async function benchStartup(): Promise<Record<string, number | string>> {
  const packed = packedDictum()
  const { bin, dir } = packed
  try {
    const node: number[] = []
    const version: number[] = []
    const serve: number[] = []
    for (let i = 0; i < ROUNDS; i++) {
      node.push(await timed(process.execPath, ['-e', '0']))
      version.push(await timed(process.execPath, [bin, '--version']))
      if (i % 2 === 0) serve.push(await untilHealthy(bin, path.join(dir, `data-${i}`)))
    }
    const nodeMs = median(node)
    return {
      'node -e 0 ms, median': round(nodeMs, 1),
      'dictum --version ms, median': round(median(version), 1),
      'dictum --version / node -e 0 (target <= 2.5)': round(median(version) / nodeMs, 2),
      'dictum serve until /v1/health answers ms, median': round(median(serve), 0),
      'dictum serve ready / node -e 0 (target <= 3)': round(median(serve) / nodeMs, 1),
      'load average': round(loadavg()[0]!, 1),
      rounds: ROUNDS,
    }
  } finally {
    packed.remove()
  }
}

/** Milliseconds from spawn to exit (status 0 required). */
function timed(command: string, args: string[]): Promise<number> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore' })
    child.once('error', reject)
    child.once('exit', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`${args.join(' ')}: exit ${code}`)),
    )
  })
}

/** Milliseconds from spawning `dictum serve` until /v1/health answers 200; the server is then stopped. */
async function untilHealthy(bin: string, dataDir: string): Promise<number> {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, [bin, 'serve', '--port', String(port), '--data-dir', dataDir], {
    stdio: 'ignore',
    // No config file: the built-in defaults, with this data folder.
    env: { ...process.env, XDG_CONFIG_HOME: dataDir },
  })
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`dictum serve exited with ${child.exitCode}`)
      const ok = await fetch(`http://127.0.0.1:${port}/v1/health`).then(
        (r) => r.ok,
        () => false,
      )
      if (ok) return performance.now() - started
      if (performance.now() - started > 60_000) throw new Error('dictum serve did not answer within 60 s')
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  } finally {
    child.kill('SIGTERM')
  }
}
