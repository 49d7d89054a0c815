/**
 * `dictum dictate --live`: text while you speak. Audio from the microphone (or `--input FILE`, paced in real
 * time as if spoken) goes to a live session in 100 ms chunks; on a terminal the growing text of each
 * utterance is drawn on stderr as it comes, and the final text of the whole dictation is printed on stdout at
 * the end (Ctrl-C, end of the file, or --max-seconds). Each utterance is stored in history as it completes.
 */
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { floatToPcm16 } from '../audio/pcm-convert.ts'
import type { DictumApp } from '../http/app.ts'
import { CliError } from './cli-error.ts'
import { type CliIO, EXIT } from './io.ts'
import { inProcessLink, type LiveLink, type LiveView, realtimeLink } from './live-link.ts'
import type { WindowTyping } from './live-typing.ts'
import type { ServerClient } from './server-client.ts'

export interface LiveDictateOptions {
  silenceSeconds: number
  maxSeconds: number
  input: string | undefined
  appName: string | undefined
  windowTitle: string | undefined
  /** `--type`: the text typed into the focused window as it comes, corrected in place. */
  typing: WindowTyping | null
}

const SAMPLE_RATE = 16000
const CHUNK_SECONDS = 0.1

/** Cuts a stream of sample arrays into chunks of exactly `size` (the last may be shorter). */
async function* rechunk(source: AsyncIterable<Float32Array>, size: number): AsyncGenerator<Float32Array> {
  let pending = new Float32Array(size)
  let filled = 0
  for await (const chunk of source) {
    let at = 0
    while (at < chunk.length) {
      const take = Math.min(size - filled, chunk.length - at)
      pending.set(chunk.subarray(at, at + take), filled)
      filled += take
      at += take
      if (filled === size) {
        yield pending
        pending = new Float32Array(size)
        filled = 0
      }
    }
  }
  if (filled > 0) yield pending.subarray(0, filled)
}

/** The terminal view: the utterance being spoken redrawn on one stderr line; finished ones kept above it. */
export class TerminalView implements LiveView {
  readonly #io: CliIO
  readonly #drawing: boolean
  readonly #texts = new Map<string, string>()
  readonly #finals: { itemId: string; text: string }[] = []
  #line = ''

  constructor(io: CliIO) {
    this.#io = io
    this.#drawing = io.stderrIsTTY === true
  }

  delta(itemId: string, text: string): void {
    const grown = (this.#texts.get(itemId) ?? '') + text
    this.#texts.set(itemId, grown)
    this.#draw(grown)
  }

  completed(itemId: string, transcript: string, removes: readonly string[] = []): void {
    this.#texts.delete(itemId)
    this.#draw('')
    for (const id of removes) {
      const index = this.#finals.findIndex((f) => f.itemId === id)
      if (index < 0) continue
      if (this.#drawing) this.#io.stderr.write(`(taken back: ${this.#finals[index]?.text})\n`)
      this.#finals.splice(index, 1)
    }
    if (transcript.trim() === '') return
    this.#finals.push({ itemId, text: transcript.trim() })
    if (this.#drawing) this.#io.stderr.write(`${transcript.trim()}\n`)
  }

  failed(itemId: string, message: string): void {
    this.#texts.delete(itemId)
    this.#draw('')
    this.#io.stderr.write(`dictum: an utterance was lost: ${message}\n`)
  }

  /** The dictation's final text: the utterances in order. */
  get text(): string {
    return this.#finals.map((f) => f.text).join(' ')
  }

  get utterances(): { itemId: string; text: string }[] {
    return [...this.#finals]
  }

  #draw(text: string): void {
    if (!this.#drawing) return
    const width = Math.max(20, (this.#io.stderr as { columns?: number }).columns ?? 80)
    const shown = text.length > width - 3 ? `…${text.slice(-(width - 4))}` : text
    if (shown === this.#line) return
    this.#line = shown
    this.#io.stderr.write(`\r\x1b[2K${shown.length > 0 ? `› ${shown}` : ''}`)
  }
}

/** What was dictated: the utterances' final texts, in order, and the whole text. */
export interface LiveDictation {
  text: string
  utterances: { itemId: string; text: string }[]
}

export async function liveDictation(
  app: DictumApp,
  io: CliIO,
  options: LiveDictateOptions,
  server: ServerClient | null,
  source: AsyncIterable<Float32Array>,
  signals: { stop: AbortSignal; abort: AbortSignal },
): Promise<LiveDictation> {
  const terminal = new TerminalView(io)
  const typing = options.typing
  const view: LiveView = typing
    ? {
        delta(id, text) {
          terminal.delta(id, text)
          typing.delta(id, text)
        },
        completed(id, text, removes) {
          terminal.completed(id, text, removes)
          typing.completed(id, text, removes)
        },
        failed(id, message) {
          terminal.failed(id, message)
          typing.failed(id)
        },
      }
    : terminal
  const linkOptions = {
    silenceMs: Math.round(options.silenceSeconds * 1000),
    appName: options.appName ?? 'dictum-cli',
    windowTitle: options.windowTitle,
  }
  const link: LiveLink = server
    ? await realtimeLink(server, linkOptions, view)
    : await inProcessLink(app, linkOptions, view)
  const onAbort = () => link.abort()
  signals.abort.addEventListener('abort', onAbort, { once: true })
  try {
    if (io.stderrIsTTY)
      io.stderr.write(
        options.input === undefined
          ? 'Listening… speak; Ctrl-C when you are done.\n'
          : `Reading ${path.basename(options.input)} in real time…\n`,
      )
    await Promise.race([feed(link, source, options, signals.stop), link.failed])
    await link.finish()
    await typing?.idle()
  } catch (err) {
    if (signals.abort.aborted) throw new CliError('Interrupted.', EXIT.interrupted)
    throw err
  } finally {
    signals.abort.removeEventListener('abort', onAbort)
  }
  return { text: terminal.text, utterances: terminal.utterances }
}

/** Sends the audio in 100 ms chunks; a file is paced in real time, the microphone paces itself. */
async function feed(
  link: LiveLink,
  source: AsyncIterable<Float32Array>,
  options: LiveDictateOptions,
  stop: AbortSignal,
): Promise<void> {
  const chunk = Math.round(SAMPLE_RATE * CHUNK_SECONDS)
  const limit = options.maxSeconds * SAMPLE_RATE
  const started = performance.now()
  let sent = 0
  for await (const samples of rechunk(source, chunk)) {
    if (stop.aborted || sent >= limit) break
    if (options.input !== undefined) {
      const due = started + (sent / SAMPLE_RATE) * 1000
      const wait = due - performance.now()
      if (wait > 0) await sleep(wait)
    }
    link.append(floatToPcm16(samples))
    sent += samples.length
  }
}
