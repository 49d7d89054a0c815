import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import type { PluginLogger } from '../../../kernel/contracts/engine.ts'
import type { EngineRunnerOptions } from '../../../kernel/engine-runner/index.ts'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
export const fixtureEngines = path.join(repoRoot, 'test/fixtures/engines')

export interface LogEntry {
  level: string
  obj: unknown
  msg: string | undefined
}

export function memoryLogger(): PluginLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = []
  const at = (level: string) => (obj: unknown, msg?: string) => {
    entries.push({ level, obj, msg })
  }
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}

/** Options for a runner of one of the fixture engines (`fake`, `abort`, `hang`, `greedy`) in a child process. */
export function fixtureRunner(
  engineId: 'fake' | 'abort' | 'hang' | 'greedy',
  overrides: Partial<EngineRunnerOptions> = {},
): EngineRunnerOptions {
  return {
    engineId,
    moduleSource: path.join(fixtureEngines, `${engineId}-engine.ts`),
    isolation: 'process',
    context: { options: defaultOptions[engineId], dataDir: '/nonexistent', modelsDir: '/nonexistent' },
    concurrency: 1,
    requestTimeoutMs: 60_000,
    loadTimeoutMs: 60_000,
    logger: memoryLogger(),
    ...overrides,
  }
}

const defaultOptions = {
  fake: { delayMs: 0, loadDelayMs: 0, stderrLines: 0 },
  abort: { crashOnLoad: false },
  hang: { hangOnLoad: false },
  greedy: { hugeChars: 8 * 1024 * 1024, leakOnLoad: false },
}

export function request(sampleCount: number, prompt?: string) {
  return {
    samples: new Float32Array(sampleCount),
    customWords: [],
    ...(prompt === undefined ? {} : { prompt }),
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Waits until the process is gone; the test's own timeout bounds the wait. */
export async function waitForExit(pid: number): Promise<void> {
  while (isAlive(pid)) await sleep(20)
}

export function pidOf(result: { debug?: Record<string, unknown> }): number {
  return result.debug?.pid as number
}

/** Seconds of deterministic noise at 16 kHz. */
export function noise(seconds: number, seed = 1): Float32Array {
  const out = new Float32Array(Math.round(seconds * 16000))
  let x = seed
  for (let i = 0; i < out.length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648
    out[i] = x / 1073741824 - 1
  }
  return out
}

export function digest(samples: Float32Array): string {
  return createHash('sha256')
    .update(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength))
    .digest('hex')
}

/** The audio handoff files (kernel/engine-runner/audio-handoff.ts) in `dir`. */
export const handoffFiles = (dir: string) =>
  fs.readdirSync(dir).filter((name) => name.startsWith('dictum-audio-'))
