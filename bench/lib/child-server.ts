/** Starts a benchmark server in its own process (so load generator and server don't share a core's time). */
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import { createInterface } from 'node:readline'

export interface ChildServer {
  port: number
  process: ChildProcess
  stop(): Promise<void>
}

const ROOT = path.resolve(import.meta.dirname, '../..')

/** Runs `bench/servers/<name>.ts`, which prints `{"port": N}` on its first stdout line. */
export async function startChildServer(name: string, env: NodeJS.ProcessEnv = {}): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/servers', `${name}.ts`)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout! })
  const [line] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`bench server ${name} exited with ${code}`)
    }),
  ])) as [string]
  const { port } = JSON.parse(line) as { port: number }
  return {
    port,
    process: child,
    async stop() {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      await once(child, 'exit')
    },
  }
}
