/**
 * A terminal progress bar for the CLI: redrawn in place on a TTY (bar, amount, speed, ETA), plain lines at
 * fixed steps otherwise (logs, pipes, CI). Used by `dictum models pull` and reusable for `dictum transcribe`
 * across files (`unit: 'count'`).
 */
import { formatBytes } from '../models/format-bytes.ts'

export interface ProgressState {
  current: number
  total: number | null
  /** Units per second, when known. */
  rate?: number | undefined
  etaSeconds?: number | null | undefined
  /** Short text after the numbers (e.g. the file being transcribed). */
  detail?: string | undefined
}

export interface ProgressBarOptions {
  stream: NodeJS.WritableStream
  isTTY: boolean
  label: string
  /** How amounts are shown: bytes (`12.3 MB`) or plain counts (`3/10`). */
  unit?: 'bytes' | 'count'
  /** Line width on a TTY (default: the stream's columns, else 80). */
  width?: number
  /** Without a TTY, a line is printed each time the percentage passes a multiple of this (default 10). */
  stepPercent?: number
  /** Without a TTY and without a total, a line is printed every this many units (default 10 MB / 10 items). */
  stepUnits?: number
  /** Least time between two redraws on a TTY (default 100 ms). */
  minRedrawMs?: number
  now?: () => number
}

export class ProgressBar {
  readonly #options: Required<Omit<ProgressBarOptions, 'width'>> & { width: number | undefined }
  #lastDraw = Number.NEGATIVE_INFINITY
  #lastStep = -1
  #drawn = false
  #last: ProgressState | null = null
  #lastPrinted: ProgressState | null = null

  constructor(options: ProgressBarOptions) {
    const unit = options.unit ?? 'bytes'
    this.#options = {
      stream: options.stream,
      isTTY: options.isTTY,
      label: options.label,
      unit,
      width: options.width,
      stepPercent: options.stepPercent ?? 10,
      stepUnits: options.stepUnits ?? (unit === 'bytes' ? 10_000_000 : 10),
      minRedrawMs: options.minRedrawMs ?? 100,
      now: options.now ?? (() => performance.now()),
    }
  }

  update(state: ProgressState): void {
    this.#last = state
    if (this.#options.isTTY) this.#drawTty(state, false)
    else this.#printStep(state)
  }

  /** Draws the final state and ends the line; `message` (if any) goes on its own line. */
  finish(message?: string): void {
    if (this.#options.isTTY) {
      if (this.#last) this.#drawTty(this.#last, true)
      if (this.#drawn) this.#options.stream.write('\n')
    } else if (
      this.#last &&
      this.#last !== this.#lastPrinted &&
      this.#lastStep !== Number.POSITIVE_INFINITY
    ) {
      this.#options.stream.write(`${this.#plainLine(this.#last)}\n`)
    }
    this.#drawn = false
    this.#lastStep = Number.POSITIVE_INFINITY
    if (message) this.#options.stream.write(`${message}\n`)
  }

  /** Erases the bar on a TTY (before an error message is printed). */
  clear(): void {
    if (this.#options.isTTY && this.#drawn) this.#options.stream.write('\r\x1b[2K')
    this.#drawn = false
  }

  #drawTty(state: ProgressState, force: boolean): void {
    const now = this.#options.now()
    const complete = state.total !== null && state.current >= state.total
    if (!force && !complete && now - this.#lastDraw < this.#options.minRedrawMs) return
    this.#lastDraw = now
    this.#drawn = true
    this.#options.stream.write(`\r\x1b[2K${this.#ttyLine(state)}`)
  }

  #ttyLine(state: ProgressState): string {
    const parts = this.#numbers(state)
    const width = this.#options.width ?? (this.#options.stream as { columns?: number }).columns ?? 80
    if (state.total === null || state.total <= 0) return [this.#options.label, ...parts].join('  ')
    const fraction = Math.min(1, state.current / state.total)
    const percent = `${Math.floor(fraction * 100)}%`.padStart(4)
    const fixed = `${this.#options.label}  ${percent}  ${parts.join('  ')}`
    const barWidth = Math.max(10, Math.min(40, width - fixed.length - 5))
    const filled = Math.round(fraction * barWidth)
    const bar = `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}]`
    return `${this.#options.label} ${bar} ${percent}  ${parts.join('  ')}`
  }

  #printStep(state: ProgressState): void {
    const step =
      state.total !== null && state.total > 0
        ? Math.floor((Math.min(1, state.current / state.total) * 100) / this.#options.stepPercent)
        : Math.floor(state.current / this.#options.stepUnits)
    if (step <= this.#lastStep) return
    this.#lastStep = step
    this.#lastPrinted = state
    this.#options.stream.write(`${this.#plainLine(state)}\n`)
  }

  #plainLine(state: ProgressState): string {
    const amount = this.#amount(state)
    const extra = [this.#rate(state), this.#eta(state), state.detail].filter((part): part is string => !!part)
    if (state.total === null || state.total <= 0)
      return `${this.#options.label}: ${[amount, ...extra].join(', ')}`
    const percent = Math.floor(Math.min(1, state.current / state.total) * 100)
    return `${this.#options.label}: ${percent}% (${[amount, ...extra].join(', ')})`
  }

  #numbers(state: ProgressState): string[] {
    return [this.#amount(state), this.#rate(state), this.#eta(state), state.detail].filter(
      (part): part is string => !!part,
    )
  }

  #amount(state: ProgressState): string {
    if (this.#options.unit === 'count')
      return state.total === null ? `${state.current}` : `${state.current}/${state.total}`
    return state.total === null
      ? formatBytes(state.current)
      : `${formatBytes(state.current)} / ${formatBytes(state.total)}`
  }

  #rate(state: ProgressState): string | undefined {
    if (state.rate === undefined || state.rate <= 0) return undefined
    return this.#options.unit === 'bytes' ? `${formatBytes(state.rate)}/s` : `${state.rate.toFixed(1)}/s`
  }

  #eta(state: ProgressState): string | undefined {
    if (state.etaSeconds === undefined || state.etaSeconds === null) return undefined
    if (state.total !== null && state.current >= state.total) return undefined
    return `ETA ${formatDuration(state.etaSeconds)}`
  }
}

/** `0:07`, `12:34`, `1:02:03`. */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = String(total % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`
}
