/**
 * The memory limit of an engine host (config `speech.memoryLimitMb`). A plugin that leaks would otherwise
 * grow until the machine swaps (measured: 4.1 GB of V8 heap, then 3 GB of buffers). Two guards, because
 * neither sees everything: V8's own heap limit (`--max-old-space-size`) stops a JavaScript leak inside the
 * host, and a watch in the API process samples the host's resident memory, which also counts buffers and
 * native allocations V8 does not know about.
 */
import { readFile } from 'node:fs/promises'
import os from 'node:os'

const MB = 1024 * 1024
/** Often enough that a leak of ~1 GB/s overshoots the limit by ~100 MB at most; a read costs ~20 µs. */
export const DEFAULT_SAMPLE_MS = 100

/** The limit when the config leaves it null: half of the machine's memory. */
export function memoryLimitMb(configured: number | null | undefined): number {
  return configured ?? Math.floor(os.totalmem() / 2 / MB)
}

/** Node's flag capping the host's V8 heap. */
export function heapLimitFlag(limitMb: number): string {
  return `--max-old-space-size=${limitMb}`
}

/** The line V8 prints to stderr just before it aborts a process whose heap is full. */
export function isHeapOutOfMemoryLine(line: string): boolean {
  return line.includes('JavaScript heap out of memory')
}

/** Resident memory of a process in bytes (Linux `/proc`); null where that cannot be read. */
export async function residentBytes(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]
    return kb === undefined ? null : Number(kb) * 1024
  } catch {
    return null
  }
}

/**
 * Samples one process's resident memory while `active()` says it works and calls `onExceeded` once when it
 * is over the limit. Stops by itself where resident memory cannot be read (no `/proc`: the heap flag still
 * applies there).
 */
export class MemoryWatch {
  readonly #timer: NodeJS.Timeout
  #sampling = false
  #stopped = false

  constructor(
    pid: number,
    limitMb: number,
    intervalMs: number,
    active: () => boolean,
    onExceeded: (bytes: number) => void,
  ) {
    this.#timer = setInterval(() => {
      if (this.#sampling || !active()) return
      this.#sampling = true
      void residentBytes(pid).then((bytes) => {
        this.#sampling = false
        if (this.#stopped) return
        if (bytes === null) return this.stop()
        if (bytes > limitMb * MB) {
          this.stop()
          onExceeded(bytes)
        }
      })
    }, intervalMs)
    this.#timer.unref()
  }

  stop(): void {
    this.#stopped = true
    clearInterval(this.#timer)
  }
}

export function toMb(bytes: number): number {
  return Math.round(bytes / MB)
}
