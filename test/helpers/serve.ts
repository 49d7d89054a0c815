/** For tests and benches that run `dictum serve` in its own process: a free port, and waiting until it answers. */
import type { ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'

/** A loopback port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

/** Resolves once GET /v1/health answers 200 on `port`; rejects if `child` exits first or after `timeoutMs`. */
export async function untilHealthy(child: ChildProcess, port: number, timeoutMs = 60_000): Promise<void> {
  const started = performance.now()
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dictum serve exited with ${child.exitCode}`)
    const ok = await fetch(`http://127.0.0.1:${port}/v1/health`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) return
    if (performance.now() - started > timeoutMs)
      throw new Error(`dictum serve did not answer within ${timeoutMs / 1000} s`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
