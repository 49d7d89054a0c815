/**
 * The order in which an engine host runs its streams' calls (host-process.ts). Each stream's calls run in
 * the order they came, one at a time. Across streams:
 * - one call is started per turn of the event loop, so a message that arrived meanwhile (a finish) is seen
 *   before the next call, not after every chunk already read;
 * - streams whose finish has arrived go first, in the order their finishes came: a final result is what the
 *   user waits for, while a partial only shows progress. The others' chunks wait meanwhile.
 * Otherwise streams take turns, the one that ran least recently first (a stream just opened, or one with a
 * single chunk, does not wait behind another's backlog). Chunks are never joined: an
 * engine sees each as it was written (measured with pocketsphinx, a hypothesis per chunk costs nothing
 * worth saving, docs/live.md).
 */

type Task = { samples: Float32Array } | { call: () => unknown }

/** One stream's calls: chunks go to `accept`, the rest (open, finish, cancel) are calls of their own. */
export class StreamLane {
  readonly tasks: Task[] = []
  /** A call of this lane is running (its promise has not settled). */
  running = false
  /** Set when the stream's finish (or cancel) arrived: the lane's calls go before others'. */
  urgent: number | null = null
  /** When a call of this lane last started (0: never), for taking turns. */
  lastRun = 0
  constructor(readonly accept: (samples: Float32Array) => unknown) {}
}

export class StreamScheduler {
  readonly #lanes = new Set<StreamLane>()
  readonly #onError: (error: unknown) => void
  #order = 0
  #scheduled = false

  /** `onError`: a call threw or rejected (the calls report their own failures; this only logs). */
  constructor(onError: (error: unknown) => void) {
    this.#onError = onError
  }

  lane(accept: (samples: Float32Array) => unknown): StreamLane {
    const lane = new StreamLane(accept)
    this.#lanes.add(lane)
    return lane
  }

  write(lane: StreamLane, samples: Float32Array): void {
    this.#push(lane, { samples })
  }

  call(lane: StreamLane, call: () => unknown): void {
    this.#push(lane, { call })
  }

  #push(lane: StreamLane, task: Task): void {
    lane.tasks.push(task)
    this.#lanes.add(lane)
    this.#schedule()
  }

  /** The lane's calls go first from now on (its finish or cancel is queued). */
  prioritise(lane: StreamLane): void {
    lane.urgent ??= ++this.#order
    this.#schedule()
  }

  /** Drops the lane's waiting calls (a cancelled stream); a call running now still ends. */
  clear(lane: StreamLane): void {
    lane.tasks.length = 0
  }

  #schedule(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      this.#startNext()
    })
  }

  #startNext(): void {
    const lane = this.#next()
    if (!lane) return
    lane.running = true
    lane.lastRun = ++this.#order
    let done: Promise<unknown>
    try {
      done = Promise.resolve(this.#run(lane))
    } catch (error) {
      done = Promise.reject(error)
    }
    done
      .catch((error: unknown) => this.#onError(error))
      .finally(() => {
        lane.running = false
        if (lane.tasks.length === 0) this.#lanes.delete(lane)
        this.#schedule()
      })
    if (this.#next()) this.#schedule()
  }

  /** The lane whose call starts next: urgent ones first (oldest first), then the oldest waiting call. */
  #next(): StreamLane | null {
    let best: StreamLane | null = null
    for (const lane of this.#lanes) {
      if (lane.running || lane.tasks.length === 0) continue
      if (!best || before(lane, best)) best = lane
    }
    return best
  }

  /** Runs the lane's next call or chunk. */
  #run(lane: StreamLane): unknown {
    const task = lane.tasks.shift() as Task
    return 'call' in task ? task.call() : lane.accept(task.samples)
  }
}

/** Urgent lanes before all others, the first made urgent first; the others by turns. */
function before(a: StreamLane, b: StreamLane): boolean {
  if (a.urgent !== null || b.urgent !== null) return b.urgent === null || (a.urgent ?? Infinity) < b.urgent
  return a.lastRun < b.lastRun
}
