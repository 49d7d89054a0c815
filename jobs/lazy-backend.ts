/**
 * A queue backend whose module is imported on first use. The Redis backend pulls in BullMQ and ioredis
 * (~300 modules, the largest part of the service's start-up), which a service on the local backend never
 * needs and a Redis one needs only once it takes jobs: the import runs after `start()` returns (so the
 * service listens first) or at the first call, whichever comes first.
 */
import type { JobListener } from './listeners.ts'
import type { JobBackend, JobListQuery, JobSpec } from './types.ts'

export class LazyJobBackend implements JobBackend {
  readonly kind: JobBackend['kind']
  readonly #load: () => Promise<JobBackend>
  #loading: Promise<JobBackend> | null = null
  #loaded: JobBackend | null = null
  #closed = false

  constructor(kind: JobBackend['kind'], load: () => Promise<JobBackend>) {
    this.kind = kind
    this.#load = load
  }

  #backend(): Promise<JobBackend> {
    this.#loading ??= this.#load().then((backend) => {
      this.#loaded = backend
      return backend
    })
    return this.#loading
  }

  /** Returns at once: the module loads and the backend starts in the background (a call meanwhile waits). */
  async start(): Promise<void> {
    setImmediate(() => {
      if (this.#closed) return
      this.#backend()
        .then(
          (backend) => backend.start(),
          () => {
            // An import that failed is tried again by the next call, which then reports the error.
            this.#loading = null
          },
        )
        // The Redis backend's start reports a Redis that does not answer itself.
        .catch(() => {})
    })
  }

  async submit(spec: JobSpec) {
    return (await this.#backend()).submit(spec)
  }

  async get(id: string) {
    return (await this.#backend()).get(id)
  }

  async list(query: JobListQuery) {
    return (await this.#backend()).list(query)
  }

  async cancel(id: string) {
    return (await this.#backend()).cancel(id)
  }

  /** Subscribing is synchronous: before the module is there, the listener is added once it is. */
  subscribe(id: string, listener: JobListener): () => void {
    if (this.#loaded) return this.#loaded.subscribe(id, listener)
    let remove: (() => void) | null = null
    let removed = false
    void this.#backend().then(
      (backend) => {
        if (!removed) remove = backend.subscribe(id, listener)
      },
      () => {},
    )
    return () => {
      removed = true
      remove?.()
    }
  }

  async workers() {
    return (await this.#backend()).workers()
  }

  async close(): Promise<void> {
    this.#closed = true
    // Never imported: nothing to let go of.
    const backend = await this.#loading?.catch(() => null)
    await backend?.close()
  }
}
