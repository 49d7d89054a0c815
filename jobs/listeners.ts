/** The listeners of each job's events (GET /v1/jobs/:id/events), kept by the backends. */
import type { JobEvent } from './types.ts'

export type JobListener = (event: JobEvent) => void

export class JobListeners {
  readonly #byJob = new Map<string, Set<JobListener>>()

  /** Adds a listener of one job; the function returned removes it. */
  add(id: string, listener: JobListener): () => void {
    let set = this.#byJob.get(id)
    if (!set) {
      set = new Set()
      this.#byJob.set(id, set)
    }
    set.add(listener)
    return () => {
      set.delete(listener)
      if (set.size === 0 && this.#byJob.get(id) === set) this.#byJob.delete(id)
    }
  }

  /** Whether anyone listens to this job (the backends read the job only then). */
  has(id: string): boolean {
    return (this.#byJob.get(id)?.size ?? 0) > 0
  }

  /** Sends an event to the job's listeners (a listener may remove itself meanwhile). */
  send(id: string, event: JobEvent): void {
    const set = this.#byJob.get(id)
    if (set) for (const listener of [...set]) listener(event)
  }

  clear(): void {
    this.#byJob.clear()
  }
}
