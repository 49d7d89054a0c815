/**
 * The config in force for one app. Services read `current` at use time, so a reload applies to the next
 * request; listeners run after a change (engine runners restart, the listener opens or closes).
 */
import type { DictumConfig } from '../config/schema.ts'

export type ConfigListener = (
  next: Readonly<DictumConfig>,
  previous: Readonly<DictumConfig>,
) => void | Promise<void>

export class ConfigStore {
  #current: Readonly<DictumConfig>
  readonly #listeners = new Set<ConfigListener>()
  /**
   * The config file: the one the config came from or, when there is none yet, where one is created (the
   * server's default location); null when the app has none (tests, embedded apps).
   */
  readonly file: string | null

  constructor(config: Readonly<DictumConfig>, file: string | null = null) {
    this.#current = config
    this.file = file
  }

  get current(): Readonly<DictumConfig> {
    return this.#current
  }

  /** Replaces the config and awaits every listener; a listener's failure is reported, not thrown. */
  async update(next: Readonly<DictumConfig>): Promise<Error[]> {
    const previous = this.#current
    this.#current = next
    const failures: Error[] = []
    for (const listener of this.#listeners) {
      try {
        await listener(next, previous)
      } catch (err) {
        failures.push(err as Error)
      }
    }
    return failures
  }

  onChange(listener: ConfigListener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }
}
