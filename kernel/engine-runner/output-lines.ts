import type { Readable } from 'node:stream'

export interface OutputLimits {
  /** Longer lines are cut (native libraries sometimes print whole buffers). */
  maxLineLength: number
  /** Lines forwarded per window; the rest are counted and reported once the window ends. */
  linesPerWindow: number
  windowMs: number
}

const defaultLimits: OutputLimits = { maxLineLength: 2000, linesPerWindow: 50, windowMs: 10_000 }

/**
 * Forwards a host's stdout/stderr to the logger line by line, with a cap so a chatty native library cannot
 * flood the log or hold memory.
 */
export class OutputLines {
  readonly #emit: (line: string) => void
  readonly #watch: ((line: string) => void) | undefined
  readonly #limits: OutputLimits
  #partial = ''
  #skippingRest = false
  #windowStart = 0
  #windowCount = 0
  #dropped = 0

  /** `watch` sees every line, also those the cap keeps from the log. */
  constructor(
    stream: Readable,
    emit: (line: string) => void,
    limits: Partial<OutputLimits> = {},
    watch?: (line: string) => void,
  ) {
    this.#emit = emit
    this.#watch = watch
    this.#limits = { ...defaultLimits, ...limits }
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => this.#push(chunk))
    stream.on('end', () => this.#flush())
  }

  #push(chunk: string): void {
    const pieces = chunk.split('\n')
    const last = pieces.pop() ?? ''
    for (const piece of pieces) {
      if (!this.#skippingRest) this.#line(this.#partial + piece)
      this.#partial = ''
      this.#skippingRest = false
    }
    if (this.#skippingRest) return
    this.#partial += last
    if (this.#partial.length > this.#limits.maxLineLength) {
      this.#line(this.#partial)
      this.#partial = ''
      this.#skippingRest = true
    }
  }

  #flush(): void {
    if (this.#partial && !this.#skippingRest) this.#line(this.#partial)
    this.#partial = ''
    this.#reportDropped()
  }

  #line(raw: string): void {
    const line = raw.replace(/\r$/, '')
    if (!line.trim()) return
    this.#watch?.(line)
    const now = Date.now()
    if (now - this.#windowStart >= this.#limits.windowMs) {
      this.#reportDropped()
      this.#windowStart = now
      this.#windowCount = 0
    }
    if (this.#windowCount >= this.#limits.linesPerWindow) {
      this.#dropped++
      return
    }
    this.#windowCount++
    const max = this.#limits.maxLineLength
    this.#emit(line.length > max ? `${line.slice(0, max)}… (cut)` : line)
  }

  #reportDropped(): void {
    if (this.#dropped === 0) return
    this.#emit(`(${this.#dropped} more lines of engine output not logged)`)
    this.#dropped = 0
  }
}
