/** Live-session test helpers: real clips as PCM16, appended in chunks, and the events a session sends. */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { pcmToMono } from '../../audio/pcm-convert.ts'
import { createResampler } from '../../audio/resampler.ts'
import type { LiveEvent, LiveSession } from '../../live/types.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'
import { encodePcm } from '../helpers/wav.ts'

/** The PCM16 bytes of a 16 kHz mono 16-bit fixture clip (its `data` chunk). */
export function clipPcm(name: string): Buffer {
  const file = readFileSync(path.join(audioFixturesDir, name))
  let at = 12
  while (at + 8 <= file.length) {
    const id = file.toString('latin1', at, at + 4)
    const size = file.readUInt32LE(at + 4)
    if (id === 'data') return file.subarray(at + 8, at + 8 + size)
    at += 8 + size + (size % 2)
  }
  throw new Error(`${name}: no data chunk`)
}

/** A fixture clip resampled to 24 kHz (the Realtime API's rate) with dictum's own resampler, as PCM16. */
export function clipPcmAt24k(name: string): Buffer {
  const clip = pcmToMono(clipPcm(name), { sampleFormat: 's16', channels: 1, blockAlign: 2 })
  const resampler = createResampler(16000, 24000)
  const up = resampler.push(clip)
  const tail = resampler.finish(clip.length)
  const at24 = new Float32Array(up.length + tail.length)
  at24.set(up)
  at24.set(tail, up.length)
  return encodePcm([at24], 's16')
}

/** `ms` of silence as PCM16 at `rate`. */
export function silencePcm(ms: number, rate = 16000): Buffer {
  return Buffer.alloc(Math.round((rate * ms) / 1000) * 2)
}

/** Appends `pcm` in chunks of `chunkMs` (at `rate`), not paced in real time, yielding to the loop between. */
export async function appendInChunks(
  session: LiveSession,
  pcm: Buffer,
  chunkMs: number,
  rate = 16000,
): Promise<void> {
  const bytes = Math.round((rate * chunkMs) / 1000) * 2
  for (let at = 0; at < pcm.length; at += bytes) {
    session.append(pcm.subarray(at, Math.min(at + bytes, pcm.length)))
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** Records a session's events and waits for the ones a test expects. */
export class EventLog {
  readonly events: LiveEvent[] = []
  readonly #waiters: { test: () => boolean; resolve: () => void }[] = []

  readonly listener = (event: LiveEvent): void => {
    this.events.push(event)
    for (const waiter of [...this.#waiters]) {
      if (waiter.test()) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
    }
  }

  of<T extends LiveEvent['type']>(type: T): Extract<LiveEvent, { type: T }>[] {
    return this.events.filter((e) => e.type === type) as Extract<LiveEvent, { type: T }>[]
  }

  /** Resolves once `count` events of `type` (completed + failed count as ends) have come, or throws after `ms`. */
  until(test: () => boolean, ms = 30_000): Promise<void> {
    if (test()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out; events: ${JSON.stringify(this.events.map((e) => e.type))}`)),
        ms,
      )
      this.#waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer)
          resolve()
        },
      })
    })
  }

  /** Items ended (completed or failed). */
  ended(): number {
    return this.of('completed').length + this.of('failed').length
  }

  /** The deltas of one item, joined. */
  deltasOf(itemId: string): string {
    return this.of('delta')
      .filter((e) => e.itemId === itemId)
      .map((e) => e.delta)
      .join('')
  }
}
