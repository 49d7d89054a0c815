/**
 * The resources a decoder holds right now (ffmpeg children, temporary directories, open files). Each
 * operation releases its own in `finally`; `closeAll` releases whatever is left, e.g. when a caller
 * abandoned a stream half-way or the service shuts down.
 */
export type Release = () => Promise<void>

export class ResourceSet {
  readonly #pending = new Set<Release>()

  /** Registers `dispose`; the returned function runs it at most once and unregisters it. */
  add(dispose: () => Promise<void>): Release {
    let done: Promise<void> | undefined
    const release: Release = () => {
      if (!done) {
        this.#pending.delete(release)
        done = dispose()
      }
      return done
    }
    this.#pending.add(release)
    return release
  }

  get size(): number {
    return this.#pending.size
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.#pending].map((release) => release()))
  }
}
