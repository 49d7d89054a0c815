/**
 * How many engine processes one engine runs at once (config `speech.concurrency`). `"auto"` takes as many as
 * the machine has cores, bounded by the memory the engine says one process needs (its definition's
 * `memoryEstimateMb`) against the machine's free memory; an explicit number is taken as it is.
 */
import os from 'node:os'
import type { EngineDefinition } from './contracts/engine.ts'

const MB = 1024 * 1024
/** Free memory left to the rest of the machine (the API process, the page cache, other programs). */
export const MEMORY_RESERVE_MB = 512
/** The cap of config `speech.concurrency` (its schema's maximum). */
const MAX_CONCURRENCY = 64

/** What "auto" reads of the machine; a service of the app so tests can give their own readings. */
export interface MachineResources {
  /** Processors the process may use (`os.availableParallelism()`). */
  cores(): number
  /** Memory the machine can give now, in MB (`os.freemem()`: Linux's MemAvailable). */
  freeMemoryMb(): number
}

export const systemResources: MachineResources = {
  cores: () => os.availableParallelism(),
  freeMemoryMb: () => Math.floor(os.freemem() / MB),
}

export interface ConcurrencyChoice {
  /** Engine processes (slots) in force. */
  concurrency: number
  /** Why this number, for `GET /v1/engines`. */
  reason: string
}

/** The engine's estimate of one process's memory with these options, in MB; null when it declares none. */
export function memoryEstimateOf(definition: EngineDefinition, options: unknown): number | null {
  const estimate = definition.memoryEstimateMb
  const mb = typeof estimate === 'function' ? estimate(options as never) : estimate
  return typeof mb === 'number' && Number.isFinite(mb) && mb > 0 ? Math.ceil(mb) : null
}

export function chooseConcurrency(input: {
  setting: number | 'auto'
  machine: MachineResources
  /** Memory one engine process needs (memoryEstimateOf); null: unknown, cores alone decide. */
  estimateMb: number | null
  /** Config `speech.memoryLimitMb`: no process grows past it, so it caps the estimate. */
  memoryLimitMb: number | null
  /** In-process engines (`isolation: 'none'`) hold no model of their own per slot. */
  isolation: 'process' | 'none'
}): ConcurrencyChoice {
  const { setting, machine } = input
  if (setting !== 'auto') return { concurrency: setting, reason: 'speech.concurrency' }
  const cores = Math.max(1, Math.min(MAX_CONCURRENCY, Math.floor(machine.cores())))
  const coresReason = `auto: ${cores} core${cores === 1 ? '' : 's'}`
  const perProcess =
    input.isolation === 'none' || input.estimateMb === null
      ? null
      : Math.min(input.estimateMb, input.memoryLimitMb ?? Number.POSITIVE_INFINITY)
  if (perProcess === null) return { concurrency: cores, reason: coresReason }
  const budget = Math.max(0, machine.freeMemoryMb() - MEMORY_RESERVE_MB)
  const fits = Math.floor(budget / perProcess)
  if (fits >= cores) return { concurrency: cores, reason: `${coresReason} (${perProcess} MB each fits)` }
  const concurrency = Math.max(1, fits)
  return {
    concurrency,
    reason: `auto: memory for ${concurrency} of ${cores} (${perProcess} MB each, ${budget} MB free beyond a ${MEMORY_RESERVE_MB} MB reserve)`,
  }
}
