/**
 * Entry file of an engine host: a child process that owns one engine instance (one loaded model) and serves
 * transcriptions one at a time for the API process. Started by {@link ./engine-host.ts}; never imported.
 */
import type { EngineInstance, PluginLogger } from '../contracts/engine.ts'
import { AudioReceiver } from './audio-handoff.ts'
import { findDefinition, importPluginModule } from './find-definition.ts'
import { exitWithParent } from './parent-watch.ts'
import { type HostMessage, type LogLevel, type ParentMessage, toWireError } from './protocol.ts'
import { oversizeReason } from './result-limit.ts'

class EngineHostProcess {
  #instance: EngineInstance | null = null
  readonly #audio = new AudioReceiver()
  readonly #running = new Map<number, AbortController>()

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

function send(message: HostMessage): void {
  if (!process.connected || !process.send) return
  try {
    process.send(message)
  } catch (error) {
    // A result that cannot be cloned must still answer the request rather than leave it hanging.
    if (message.type === 'result') send({ type: 'error', id: message.id, error: toWireError(error) })
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
await exitWithParent(Number.isInteger(parentPid) ? parentPid : process.ppid)
new EngineHostProcess().start()
