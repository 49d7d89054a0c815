/**
 * How a piece's samples reach an engine host.
 *
 * Through the IPC pipe, 11 s of audio (704 KB of float32) crosses in 64 KB writes, each needing a turn of the
 * API process's event loop, so whatever else that thread does (the VAD's speech check, other requests) holds
 * the engine back: measured ~3 ms per request before the host could start. Pieces larger than one pipe write
 * are instead written to a private file in shared memory (`/dev/shm`), one per host, which the host reads in
 * one call. The API process removes the file when the host exits, and files left by a process that died are
 * swept on first use. Where there is no writable `/dev/shm` (macOS, Windows, locked-down containers) samples
 * go through the pipe as before.
 */
import { randomBytes } from 'node:crypto'
import {
  accessSync,
  closeSync,
  constants,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import path from 'node:path'

/** Samples as they cross IPC. */
export type WireAudio =
  | { kind: 'inline'; samples: Float32Array }
  | { kind: 'file'; file: string; length: number }

/** Smaller pieces go inline: one pipe write carries them. */
export const INLINE_MAX_BYTES = 64 * 1024
const PREFIX = 'dictum-audio-'
const NAME = /^dictum-audio-(\d+)-[0-9a-f]+\.f32$/

/** undefined until first checked. */
let shared: string | null | undefined

/** `/dev/shm` when it is a writable directory here (checked once per process, stale files swept), else null. */
export function sharedMemoryDir(): string | null {
  if (shared !== undefined) return shared
  shared = usableDir('/dev/shm')
  if (shared) sweepOrphans(shared)
  return shared
}

/** The directory when it exists and this process may create files in it, else null. */
export function usableDir(dir: string): string | null {
  try {
    if (!statSync(dir).isDirectory()) return null
    accessSync(dir, constants.W_OK)
    return dir
  } catch {
    return null
  }
}

/** Removes handoff files whose writer process no longer exists (it was killed before its hosts exited). */
export function sweepOrphans(dir: string): number {
  let removed = 0
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return 0
  }
  for (const name of names) {
    const match = NAME.exec(name)
    if (!match || processAlive(Number(match[1]))) continue
    rmSync(path.join(dir, name), { force: true })
    removed++
  }
  return removed
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * The API-process side for one engine host: one private file, created on first use and overwritten by each
 * piece (the host serves one piece at a time), so its pages are allocated once: writing 11 s then costs
 * ~0.05 ms where a new file per piece cost ~0.3 ms. `close()` removes it; call it when the host has exited.
 */
export class AudioHandoff {
  readonly #dir: string | null
  #file: { path: string; fd: number } | null = null
  #closed = false

  constructor(dir: string | null) {
    this.#dir = dir
  }

  /** Samples for the host's next piece: written to the file when large, else inline. */
  pack(samples: Float32Array): WireAudio {
    if (this.#dir === null || this.#closed || samples.byteLength <= INLINE_MAX_BYTES) {
      return { kind: 'inline', samples }
    }
    try {
      const file = this.#open(this.#dir)
      const bytes = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength)
      let written = 0
      while (written < bytes.byteLength) {
        written += writeSync(file.fd, bytes, written, bytes.byteLength - written, written)
      }
      return { kind: 'file', file: file.path, length: samples.length }
    } catch {
      // Shared memory full or gone: drop the file, the pipe still works.
      this.close()
      return { kind: 'inline', samples }
    }
  }

  /** Removes the file. Safe to call twice; later pieces go inline. */
  close(): void {
    this.#closed = true
    const file = this.#file
    this.#file = null
    if (!file) return
    try {
      closeSync(file.fd)
    } catch {}
    rmSync(file.path, { force: true })
  }

  #open(dir: string): { path: string; fd: number } {
    if (this.#file) return this.#file
    const file = path.join(dir, `${PREFIX}${process.pid}-${randomBytes(8).toString('hex')}.f32`)
    // O_EXCL: never follows a planted link; 0600: other users cannot read the audio.
    this.#file = { path: file, fd: openSync(file, 'wx+', 0o600) }
    return this.#file
  }
}

/**
 * The host side: reads pieces from the API process's handoff file (kept open between pieces). Throws when the
 * file is gone or shorter than the message says.
 *
 * The memory a piece is read into is kept for the next piece (a host serves one piece at a time): a fresh
 * buffer per piece costs its page faults twice, once on the read and again, measured, inside the engine
 * (~0.3 ms and ~0.3 ms for 11 s of audio). The host gives a piece's samples back with {@link release} once the
 * engine is done with them; a piece that arrives while the buffer is still out gets a buffer of its own.
 */
export class AudioReceiver {
  #file: { path: string; fd: number } | null = null
  /** The buffer kept for the next piece; null while it is lent out (or before the first piece). */
  #spare: ArrayBuffer | null = null
  #lent: ArrayBuffer | null = null

  receive(wire: WireAudio): Float32Array {
    if (wire.kind === 'inline') return wire.samples
    const fd = this.#open(wire.file)
    const size = wire.length * 4
    let buffer = this.#spare
    if (buffer === null || buffer.byteLength < size) {
      // Every byte used is overwritten below (or the piece is refused), so it need not be zeroed first.
      buffer = Buffer.allocUnsafeSlow(size).buffer as ArrayBuffer
    }
    if (this.#lent === null) {
      this.#spare = null
      this.#lent = buffer
    }
    const bytes = new Uint8Array(buffer, 0, size)
    let read = 0
    while (read < size) {
      const n = readSync(fd, bytes, read, size - read, read)
      if (n === 0) break
      read += n
    }
    if (read !== size) {
      this.release(bytes)
      throw new Error(`the audio handoff file holds ${read} bytes, expected ${size}`)
    }
    return new Float32Array(buffer, 0, wire.length)
  }

  /** Takes back the memory of a piece's samples (returned by {@link receive}) for the next piece. */
  release(samples: ArrayBufferView): void {
    if (this.#lent !== null && samples.buffer === this.#lent) {
      this.#spare = this.#lent
      this.#lent = null
    }
  }

  close(): void {
    if (this.#file) closeSync(this.#file.fd)
    this.#file = null
    this.#spare = null
  }

  #open(file: string): number {
    if (this.#file?.path === file) return this.#file.fd
    if (this.#file) closeSync(this.#file.fd)
    this.#file = { path: file, fd: openSync(file, 'r') }
    return this.#file.fd
  }
}
