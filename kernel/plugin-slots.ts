/**
 * The lifecycle both registries share (engines: a runner per engine; providers: an instance per provider):
 * one live value per key, made for the options in force and kept while they stay the same. When they
 * change, the value is retired: the requests holding it finish on it and it is closed once the last lets go;
 * new requests get a value made for the new options. `close()` closes everything, retired values included.
 */
export interface Slot<T> {
  /** What the value was made for (its options, serialised); another key makes a new value. */
  readonly optionsKey: string
  readonly value: T
  /** Requests holding the value now. */
  users: number
  /** Replaced: handed out no more, closed once `users` is 0. */
  retired: boolean
}

export interface SlotEvents<T> {
  /** Closes a value that no request holds any more. */
  close: (value: T) => Promise<void>
  /** A value was retired while requests still held it (they finish on it first). */
  draining?: (key: string, slot: Slot<T>) => void
  /** The last holder let go of a value that is still live. */
  idle?: (slot: Slot<T>) => void
  /** A request took hold of a value. */
  held?: (slot: Slot<T>) => void
}

export class PluginSlots<T> {
  readonly #live = new Map<string, Slot<T>>()
  /** Retired values still serving the requests that hold them. */
  readonly #draining = new Set<Slot<T>>()
  readonly #events: SlotEvents<T>

  constructor(events: SlotEvents<T>) {
    this.#events = events
  }

  /** The live slot of `key`, whatever it was made for. */
  get(key: string): Slot<T> | undefined {
    return this.#live.get(key)
  }

  /** The live slot of `key` when it was made for `optionsKey`; else a new one with `make()`, the old retired. */
  take(key: string, optionsKey: string, make: () => T): Slot<T> {
    const live = this.#live.get(key)
    if (live && live.optionsKey === optionsKey) return live
    if (live) this.retire(key, live)
    const slot: Slot<T> = { optionsKey, value: make(), users: 0, retired: false }
    this.#live.set(key, slot)
    return slot
  }

  /** Counts one more request on `slot`; the returned release undoes it, once. */
  hold(slot: Slot<T>): () => void {
    slot.users++
    this.#events.held?.(slot)
    let released = false
    return () => {
      if (released) return
      released = true
      slot.users--
      if (slot.users > 0) return
      if (slot.retired) this.#closeRetired(slot)
      else this.#events.idle?.(slot)
    }
  }

  /** Takes `slot` out of service: closed now when unused, else once its requests are done. */
  retire(key: string, slot: Slot<T>): void {
    if (this.#live.get(key) === slot) this.#live.delete(key)
    if (slot.retired) return
    slot.retired = true
    if (slot.users === 0) {
      void this.#events.close(slot.value).catch(() => {})
      return
    }
    this.#draining.add(slot)
    this.#events.draining?.(key, slot)
  }

  /** Every live key with its slot (for reconfiguration). */
  entries(): [string, Slot<T>][] {
    return [...this.#live]
  }

  async close(): Promise<void> {
    const all = [...this.#live.values(), ...this.#draining]
    this.#live.clear()
    this.#draining.clear()
    await Promise.allSettled(all.map((slot) => this.#events.close(slot.value)))
  }

  #closeRetired(slot: Slot<T>): void {
    void this.#events
      .close(slot.value)
      .catch(() => {})
      .finally(() => this.#draining.delete(slot))
  }
}
