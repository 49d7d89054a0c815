/**
 * Turns a stream of byte counts into throttled progress reports with a speed over a sliding window and an
 * ETA. Shared by the HTTP download and the hashing of a local archive.
 *
 * A count the throttle held back is reported when the interval ends (a trailing report): a download that
 * stalls right after a held-back count would otherwise show a stale figure for as long as it stalls.
 */

export interface DownloadProgress {
  /** Bytes of the file received so far (a resumed download counts the prefix already on disk). */
  receivedBytes: number
  /** Size of the whole file, when the server (or the file system) says it. */
  totalBytes: number | null
  bytesPerSecond: number
  etaSeconds: number | null
}

export type ProgressListener = (progress: DownloadProgress) => void

export interface ProgressMeterOptions {
  onProgress?: ProgressListener | undefined
  /** Monotonic clock in milliseconds. */
  now?: () => number
  /** Least time between two reports (the last one is always sent by `finish`). */
  intervalMs?: number
  /** Speed is measured over this much recent time. */
  windowMs?: number
}

export class ProgressMeter {
  readonly #onProgress: ProgressListener | undefined
  readonly #now: () => number
  readonly #intervalMs: number
  readonly #windowMs: number
  #received = 0
  #total: number | null = null
  #samples: Array<{ at: number; bytes: number }> = []
  #lastReport = Number.NEGATIVE_INFINITY
  #trailing: NodeJS.Timeout | undefined

  constructor(options: ProgressMeterOptions = {}) {
    this.#onProgress = options.onProgress
    this.#now = options.now ?? (() => performance.now())
    this.#intervalMs = options.intervalMs ?? 100
    this.#windowMs = options.windowMs ?? 3000
  }

  get receivedBytes(): number {
    return this.#received
  }

  setTotal(total: number | null): void {
    this.#total = total
  }

  /** Starts counting again from `received` (a restart or a resume): the speed window is emptied. */
  reset(received: number): void {
    this.#received = received
    this.#samples = []
    this.#sample()
    this.#report(true)
  }

  add(bytes: number): void {
    this.#received += bytes
    this.#sample()
    this.#report(false)
  }

  /** Sends a last report whatever the throttle says. */
  finish(): void {
    this.#sample()
    this.#report(true)
  }

  /** Drops a trailing report still to come (the work failed or was cancelled). Safe to call twice. */
  close(): void {
    clearTimeout(this.#trailing)
    this.#trailing = undefined
  }

  snapshot(): DownloadProgress {
    const rate = this.#rate()
    const remaining = this.#total === null ? null : Math.max(0, this.#total - this.#received)
    let eta: number | null = null
    if (remaining === 0) eta = 0
    else if (remaining !== null && rate > 0) eta = remaining / rate
    return { receivedBytes: this.#received, totalBytes: this.#total, bytesPerSecond: rate, etaSeconds: eta }
  }

  #sample(): void {
    const at = this.#now()
    this.#samples.push({ at, bytes: this.#received })
    while (this.#samples.length > 2 && at - (this.#samples[1]?.at ?? at) > this.#windowMs)
      this.#samples.shift()
  }

  #rate(): number {
    const first = this.#samples[0]
    const last = this.#samples[this.#samples.length - 1]
    if (!first || !last || last.at <= first.at) return 0
    return ((last.bytes - first.bytes) * 1000) / (last.at - first.at)
  }

  #report(force: boolean): void {
    if (!this.#onProgress) return
    const at = this.#now()
    const wait = this.#lastReport + this.#intervalMs - at
    if (!force && wait > 0) {
      this.#trailing ??= setTimeout(() => {
        this.#trailing = undefined
        this.#sample()
        this.#report(true)
      }, wait).unref()
      return
    }
    this.close()
    this.#lastReport = at
    this.#onProgress(this.snapshot())
  }
}
