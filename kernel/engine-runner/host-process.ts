/**
 * Entry file of an engine host: a child process that owns one engine instance (one loaded model) and serves
 * transcriptions one at a time, or live utterances (streams, several at once), for the API process. Started
 * by {@link ./engine-host.ts}; never imported.
 */

import { errors } from '../../errors/catalogue.ts'
import type { EngineInstance, EngineStream, PluginLogger } from '../contracts/engine.ts'
import { AudioReceiver } from './audio-handoff.ts'
import { findDefinition, importPluginModule } from './find-definition.ts'
import { exitWithParent } from './parent-watch.ts'
import { type HostMessage, type LogLevel, type ParentMessage, toWireError } from './protocol.ts'
import { oversizeReason } from './result-limit.ts'
import { type StreamLane, StreamScheduler } from './stream-scheduler.ts'

/**
 * A stream whose audio waiting in the host passes this many seconds is told it has fallen behind
 * (`EngineStream.fallenBehind`): its partials would come this late. Longer than a final of a long utterance
 * takes here (~3 s for 11 s of speech with pocketsphinx), so one final ahead of it in the host does not.
 */
const LIVE_LAG_SECONDS = 4
const LIVE_LAG_SAMPLES = LIVE_LAG_SECONDS * 16000

class EngineHostProcess {
  #instance: EngineInstance | null = null
  readonly #audio = new AudioReceiver()
  readonly #running = new Map<number, AbortController>()
  readonly #streams = new Map<number, HostStream>()
  readonly #scheduler = new StreamScheduler((error) =>
    forwardingLogger().warn({ err: error }, 'engine stream call failed'),
  )

  start(): void {
    process.on('message', (message: ParentMessage) => this.#handle(message))
    // Messages sent before a listener exists would be lost, so the parent waits for this one.
    send({ type: 'hello' })
  }

  #handle(message: ParentMessage): void {
    if (message.type === 'init') void this.#init(message)
    else if (message.type === 'transcribe') void this.#transcribe(message.id, message)
    else if (message.type === 'abort') this.#running.get(message.id)?.abort()
    else if (message.type === 'close') void this.#close()
    else if (message.type === 'stream-open') this.#openStream(message)
    else this.#streamMessage(message)
  }

  #openStream({ id, options }: Extract<ParentMessage, { type: 'stream-open' }>): void {
    const entry: HostStream = {
      stream: null,
      samples: 0,
      lane: this.#scheduler.lane((samples) => this.#accept(id, entry, samples)),
      finishing: false,
      queued: 0,
      behind: false,
      cancelled: false,
    }
    this.#streams.set(id, entry)
    this.#scheduler.call(entry.lane, async () => {
      try {
        if (!this.#instance) throw new Error('the engine is not loaded')
        if (!this.#instance.openStream)
          throw errors.ENGINE_STREAMING_UNSUPPORTED('the engine has no openStream.')
        entry.stream = await this.#instance.openStream(options)
      } catch (error) {
        this.#streams.delete(id)
        send({ type: 'stream-error', id, operation: 'openStream', error: toWireError(error) })
        return
      }
      // Cancelled while the engine opened it.
      if (this.#streams.get(id) !== entry) entry.stream.cancel()
      else {
        if (entry.finishing) this.#call(() => entry.stream?.finishing?.())
        if (entry.behind) this.#call(() => entry.stream?.fallenBehind?.())
        send({ type: 'stream-opened', id })
      }
    })
  }

  /** A stream's chunk, finish or cancel, run after its earlier calls (stream-scheduler.ts says in which order). */
  #streamMessage(
    message: Extract<ParentMessage, { type: 'stream-write' | 'stream-finish' | 'stream-cancel' }>,
  ): void {
    const { id } = message
    const entry = this.#streams.get(id)
    if (!entry) return
    if (message.type === 'stream-write') {
      entry.queued += message.samples.length
      this.#scheduler.write(entry.lane, message.samples)
      if (!entry.behind && !entry.finishing && entry.queued > LIVE_LAG_SAMPLES) {
        entry.behind = true
        this.#call(() => entry.stream?.fallenBehind?.())
      }
      return
    }
    if (message.type === 'stream-cancel') {
      // The chunks and finish still queued are skipped: a session that ended costs the host nothing more.
      this.#streams.delete(id)
      entry.cancelled = true
      this.#scheduler.clear(entry.lane)
      this.#scheduler.call(entry.lane, () => entry.stream?.cancel())
      this.#scheduler.prioritise(entry.lane)
      return
    }
    if (!entry.finishing) {
      // Told now, not after the queued chunks: the engine may stop work that only served partials.
      entry.finishing = true
      this.#call(() => entry.stream?.finishing?.())
    }
    this.#scheduler.call(entry.lane, () => this.#finish(id, entry))
    this.#scheduler.prioritise(entry.lane)
  }

  /** Chunks (one or several joined) through the engine's stream; a new hypothesis goes to the parent. */
  async #accept(id: number, entry: HostStream, samples: Float32Array): Promise<void> {
    entry.queued -= samples.length
    const stream = entry.stream
    // Opening failed (already reported), the stream ended on an earlier error, or it was cancelled.
    if (!stream || entry.cancelled) return
    try {
      entry.samples += samples.length
      const partial = await stream.accept(samples)
      if (partial && this.#streams.get(id) === entry) send({ type: 'stream-partial', id, partial })
    } catch (error) {
      this.#failed(id, entry, stream, 'accept', error)
    }
  }

  async #finish(id: number, entry: HostStream): Promise<void> {
    const stream = entry.stream
    if (!stream || entry.cancelled) return
    try {
      const result = await stream.finish()
      this.#streams.delete(id)
      const oversize = oversizeReason(result, entry.samples)
      if (oversize) send({ type: 'oversize', id, reason: oversize })
      else send({ type: 'stream-final', id, result })
      entry.stream = null
      stream.cancel()
    } catch (error) {
      this.#failed(id, entry, stream, 'finish', error)
    }
  }

  #failed(
    id: number,
    entry: HostStream,
    stream: EngineStream,
    operation: 'accept' | 'finish',
    error: unknown,
  ) {
    this.#streams.delete(id)
    entry.stream = null
    send({ type: 'stream-error', id, operation, error: toWireError(error) })
    stream.cancel()
  }

  /** An engine call outside the stream's queue (it must not throw into the message handler). */
  #call(call: () => unknown): void {
    try {
      call()
    } catch (error) {
      forwardingLogger().warn({ err: error }, 'engine stream call failed')
    }
  }

  async #init(message: Extract<ParentMessage, { type: 'init' }>): Promise<void> {
    try {
      const definition = findDefinition(await importPluginModule(message.moduleSource), message.engineId)
      const instance = await definition.create({ ...message.context, logger: forwardingLogger() })
      this.#instance = instance
      await instance.load()
      send({ type: 'ready' })
    } catch (error) {
      send({ type: 'load-error', error: toWireError(error) })
    }
  }

  async #transcribe(id: number, message: Extract<ParentMessage, { type: 'transcribe' }>): Promise<void> {
    send({ type: 'started', id })
    const controller = new AbortController()
    this.#running.set(id, controller)
    let samples: Float32Array | null = null
    try {
      if (!this.#instance) throw new Error('the engine is not loaded')
      samples = this.#audio.receive(message.audio)
      const result = await this.#instance.transcribe({ ...message.request, samples }, controller.signal)
      // Checked here so an oversized result never crosses IPC into the API process.
      const oversize = oversizeReason(result, samples.length)
      if (oversize) send({ type: 'oversize', id, reason: oversize })
      else send({ type: 'result', id, result })
    } catch (error) {
      send({ type: 'error', id, error: toWireError(error) })
    } finally {
      this.#running.delete(id)
      if (samples) this.#audio.release(samples)
    }
  }

  async #close(): Promise<void> {
    try {
      await this.#instance?.close()
    } finally {
      process.exit(0)
    }
  }
}

/** One live utterance: the engine's stream (null until opened, and once over) and its calls, chained. */
interface HostStream {
  stream: EngineStream | null
  /** Samples accepted, for the final result's size cap. */
  samples: number
  /** Its calls, in the order the host runs them. */
  lane: StreamLane
  /** The finish has arrived (queued behind chunks): the engine was told with `finishing()`. */
  finishing: boolean
  /** Samples written and not yet accepted. */
  queued: number
  /** More than LIVE_LAG_SECONDS waited at once: the engine was told with `fallenBehind()`. */
  behind: boolean
  /** Cancelled: calls still queued are skipped. */
  cancelled: boolean
}

function send(message: HostMessage): void {
  if (!process.connected || !process.send) return
  try {
    process.send(message)
  } catch (error) {
    // A result that cannot be cloned must still answer the request rather than leave it hanging.
    if (message.type === 'result') send({ type: 'error', id: message.id, error: toWireError(error) })
    if (message.type === 'stream-final' || message.type === 'stream-partial') {
      const operation = message.type === 'stream-final' ? 'finish' : 'accept'
      send({ type: 'stream-error', id: message.id, operation, error: toWireError(error) })
    }
  }
}

function forwardingLogger(): PluginLogger {
  const at = (level: LogLevel) => (obj: unknown, msg?: string) =>
    send({ type: 'log', level, obj: cloneable(obj), ...(msg === undefined ? {} : { msg }) })
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}

function cloneable(obj: unknown): unknown {
  if (obj instanceof Error) return { err: { name: obj.name, message: obj.message, stack: obj.stack } }
  try {
    return structuredClone(obj)
  } catch {
    return String(obj)
  }
}

const parentPid = Number(process.env.DICTUM_ENGINE_HOST_PARENT_PID)
// Not a top-level await: the package's bundle is a CommonJS file (scripts/build.ts), which has none.
void exitWithParent(Number.isInteger(parentPid) ? parentPid : process.ppid).then(() =>
  new EngineHostProcess().start(),
)
