/**
 * A session's committed items, in commit order, until each has had its last event (`completed` or
 * `failed`), and the backlog they make: committed audio waiting behind the item being transcribed. The
 * session bounds that backlog (`realtime.maxBacklogSeconds`, docs/live.md): half of it gives the client a
 * warning it can act on (send slower, or commit less), all of it ends the session.
 */
import { SAMPLE_RATE } from './item.ts'

interface Entry {
  samples: number
  /** Its transcript (or failure) is in: no longer waiting for the engine. */
  settled: boolean
}

export type BacklogState = 'ok' | 'warn' | 'full'

export class CommittedItems {
  readonly #entries = new Map<string, Entry>()
  /** A warning was given and the backlog has not come down since. */
  #warned = false

  /** A committed item of `samples` (16 kHz); the backlog's state with it. */
  add(id: string, samples: number, maxBacklogSeconds: number): BacklogState {
    this.#entries.set(id, { samples, settled: false })
    const waiting = this.waitingSeconds()
    if (waiting > maxBacklogSeconds) return 'full'
    if (waiting <= maxBacklogSeconds / 2 || this.#warned) return 'ok'
    this.#warned = true
    return 'warn'
  }

  /** The item's transcript (or failure) is in. */
  settled(id: string, maxBacklogSeconds: number): void {
    const entry = this.#entries.get(id)
    if (entry) entry.settled = true
    // Warned again only once the client has caught up.
    if (this.waitingSeconds() <= maxBacklogSeconds / 4) this.#warned = false
  }

  /** The item's last event went out. */
  reported(id: string): void {
    this.#entries.delete(id)
  }

  /** Items committed whose last event has not gone out, oldest first. */
  unreported(): string[] {
    return [...this.#entries.keys()]
  }

  /** Seconds of committed audio not transcribed yet, behind the oldest such item (the one being transcribed). */
  waitingSeconds(): number {
    let samples = 0
    let first = true
    for (const entry of this.#entries.values()) {
      if (entry.settled) continue
      if (!first) samples += entry.samples
      first = false
    }
    return samples / SAMPLE_RATE
  }
}
