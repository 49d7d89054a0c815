/**
 * One `dictum dictate` recording, loaded when one starts (dictate.ts parses the options): the microphone or a
 * file until a pause (or, held by a key binding, until --end), the dictation on the running service or in this
 * process, then the text printed, copied or typed; `--live` goes through live-dictation.ts.
 */
import path from 'node:path'
import { encodeWav16 } from '../audio/wav-encode.ts'
import type { DictumApp } from '../http/app.ts'
import { VadSegmenter } from '../vad/index.ts'
import { bundledVadModel } from '../vad/service.ts'
import { captureAudio, captureSpec } from './capture.ts'
import { CliError, usageError } from './cli-error.ts'
import { clipboardTool, type DesktopTool, runTool, typingTool } from './desktop-tools.ts'
import {
  DEFAULT_LIVE_SILENCE,
  DEFAULT_MAX_SECONDS,
  DEFAULT_SILENCE,
  DEFAULT_TYPE_DELAY_MS,
  type Values,
} from './dictate-options.ts'
import { onInterrupt, untilAborted } from './interrupt.ts'
import { type CliIO, EXIT } from './io.ts'
import { liveDictation } from './live-dictation.ts'
import { WindowTyping } from './live-typing.ts'
import type { Notifier } from './notify.ts'
import { type Recording, recordUntilPause } from './record-until-pause.ts'
import { findServer, type ServerClient, ServiceUnreachable, serverChoice } from './server-client.ts'
import { loadCliConfig, withServices } from './services.ts'

interface DictateOptions {
  live: boolean
  silence: number
  maxSeconds: number
  input: string | undefined
  backend: string | undefined
  device: string | undefined
  tools: DesktopTool[]
  appName: string | undefined
  windowTitle: string | undefined
  json: boolean
  verbose: boolean
  /** Started by --begin / --toggle: records until --end, not until a pause. */
  held: boolean
  notifier: Notifier
}

export async function dictate(
  values: Values,
  io: CliIO,
  notifier: Notifier,
  stop: AbortController,
  held: boolean,
): Promise<{ code: number; text: string }> {
  // The tools are looked up first: a missing one is reported before anyone speaks.
  const tools: DesktopTool[] = []
  if (values.copy) tools.push(clipboardTool(io.env))
  if (values.type) tools.push(typingTool(io.env, typeDelay(values['type-delay'])))
  const live = values.live === true
  const options: DictateOptions = {
    live,
    silence: seconds(values.silence, '--silence', live ? DEFAULT_LIVE_SILENCE : DEFAULT_SILENCE, 0.1, 60),
    maxSeconds: seconds(values['max-seconds'], '--max-seconds', DEFAULT_MAX_SECONDS, 1, 7200),
    input: values.input,
    backend: values.backend,
    device: values.device,
    tools,
    appName: values['app-name'],
    windowTitle: values['window-title'],
    json: values.json === true,
    verbose: values.verbose === true || io.stderrIsTTY === true,
    held,
    notifier,
  }
  const checked = await loadCliConfig(values, io)
  if (values['data-dir'] !== undefined && values.server !== undefined)
    throw usageError('--data-dir works in this process only: drop --server (or it).')
  const server =
    values['data-dir'] !== undefined
      ? null
      : await findServer(serverChoice(values), checked.loaded.config, io)
  return withServices(values, io, (app) => new Dictation(app, io, options, server, stop).run(), checked)
}

function seconds(raw: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max)
    throw usageError(`${name} must be a number of seconds from ${min} to ${max}, got "${raw}".`)
  return value
}

/** `--type-delay MS`: whole milliseconds between typed keys, 0 to 1000. */
function typeDelay(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_TYPE_DELAY_MS
  const value = Number(raw)
  if (raw.trim() === '' || !Number.isInteger(value) || value < 0 || value > 1000)
    throw usageError(`--type-delay must be a whole number of milliseconds from 0 to 1000, got "${raw}".`)
  return value
}

class Dictation {
  readonly #app: DictumApp
  readonly #io: CliIO
  readonly #options: DictateOptions
  /** First Ctrl-C (or --end): stop recording. */
  readonly #stop: AbortController
  /** Second Ctrl-C (or Ctrl-C while transcribing): abort. */
  readonly #abort = new AbortController()
  #recording = true
  /** A running dictum service that does the dictation with its loaded engine, or null (in process). */
  readonly #server: ServerClient | null

  constructor(
    app: DictumApp,
    io: CliIO,
    options: DictateOptions,
    server: ServerClient | null,
    stop: AbortController,
  ) {
    this.#stop = stop
    this.#app = app
    this.#io = io
    this.#options = options
    this.#server = server
  }

  async run(): Promise<{ code: number; text: string }> {
    const interrupts = onInterrupt(() => {
      if (this.#recording && !this.#stop.signal.aborted) this.#stop.abort()
      else this.#abort.abort()
    })
    try {
      return await this.#run()
    } catch (err) {
      if (this.#abort.signal.aborted) throw new CliError('Interrupted.', EXIT.interrupted)
      throw err
    } finally {
      interrupts.close()
    }
  }

  async #run(): Promise<{ code: number; text: string }> {
    if (this.#options.live) return this.#live()
    const engine = this.#warmEngine()
    const recording = await this.#record()
    this.#recording = false
    engine.failure()
    if (recording.samples.length === 0) throw new CliError('Nothing was recorded.')
    this.#status(`Transcribing ${(recording.samples.length / 16000).toFixed(1)} s of audio…`)
    this.#options.notifier.notify('transcribing')
    const { entry, storeError } = await untilAborted(
      this.#dictate(encodeWav16(recording.samples)),
      this.#abort.signal,
    )
    if (entry.finalText.trim() === '') throw new CliError('No speech was recognised; nothing was stored.')
    // The text is what the user dictated for: it is delivered even when history could not keep it.
    if (storeError !== null) this.#io.stderr.write(`dictum: not stored in history: ${storeError}\n`)
    this.#io.stdout.write(this.#options.json ? `${JSON.stringify(entry, null, 2)}\n` : `${entry.finalText}\n`)
    for (const tool of this.#options.tools) await runTool(tool, entry.finalText, this.#io.env)
    this.#options.notifier.notify('done', entry.finalText)
    return { code: EXIT.ok, text: entry.finalText }
  }

  /** `--live`: text while speaking, through the running service's realtime session or this process's. */
  async #live(): Promise<{ code: number; text: string }> {
    // --type: typed into the window as it comes; --copy: the whole text at the end.
    const typist = this.#options.tools.find((tool) => tool.backspaces !== undefined)
    const typing = typist
      ? new WindowTyping(typist, this.#io.env, (erased) =>
          this.#status(`Corrected the window: ${erased} characters taken back.`),
        )
      : null
    this.#options.notifier.notify('listening')
    const { text, utterances } = await liveDictation(
      this.#app,
      this.#io,
      {
        silenceSeconds: this.#options.silence,
        maxSeconds: this.#options.maxSeconds,
        input: this.#options.input,
        appName: this.#options.appName,
        windowTitle: this.#options.windowTitle,
        typing,
      },
      this.#server,
      this.#source(),
      { stop: this.#stop.signal, abort: this.#abort.signal },
    )
    this.#recording = false
    if (text === '') throw new CliError('No speech was recognised; nothing was stored.')
    this.#io.stdout.write(
      this.#options.json ? `${JSON.stringify({ text, utterances }, null, 2)}\n` : `${text}\n`,
    )
    for (const tool of this.#options.tools) if (tool !== typist) await runTool(tool, text, this.#io.env)
    this.#options.notifier.notify('done', text)
    return { code: EXIT.ok, text }
  }

  /** The dictation pipeline on the recording: the running service's, else this process's. */
  async #dictate(wav: Buffer): Promise<{ entry: { finalText: string }; storeError: string | null }> {
    const fields = { appName: this.#options.appName, windowTitle: this.#options.windowTitle }
    if (this.#server) {
      try {
        return await this.#server.dictate(wav, fields, this.#abort.signal)
      } catch (err) {
        // The service went away while the user spoke: the recording is not lost, this process transcribes it.
        if (!(err instanceof ServiceUnreachable)) throw err
        this.#io.stderr.write(`dictum: ${err.message}\ndictum: transcribing in this process instead.\n`)
      }
    }
    const { entry, storeError } = await this.#app.dictum.dictation.dictate(
      { kind: 'bytes', data: wav, filename: 'dictation.wav', contentType: 'audio/wav' },
      {
        signal: this.#abort.signal,
        ...(fields.appName !== undefined ? { appName: fields.appName } : {}),
        ...(fields.windowTitle !== undefined ? { windowTitle: fields.windowTitle } : {}),
      },
    )
    return { entry, storeError }
  }

  /**
   * Loads the engine while the user speaks; a failure stops the recording and is reported after it. A
   * running service has its engine loaded already.
   */
  #warmEngine(): { failure(): void } {
    if (this.#server) return { failure: () => {} }
    let failed: { error: unknown } | null = null
    this.#app.dictum.engines.acquire().then(
      (engine) => engine.release(),
      (error: unknown) => {
        failed = { error }
        this.#stop.abort()
      },
    )
    return {
      failure: () => {
        if (failed !== null) throw (failed as { error: unknown }).error
      },
    }
  }

  async #record(): Promise<Recording> {
    // Held (--begin/--toggle): the recording goes on until --end, through any pause.
    const vad = this.#options.held ? null : await this.#openVad()
    try {
      const recording = await recordUntilPause(this.#source(), {
        vad,
        maxSeconds: this.#options.maxSeconds,
        stop: this.#stop.signal,
        signal: this.#abort.signal,
        onAudio: () => {
          this.#options.notifier.notify('listening')
          this.#status(
            this.#options.input === undefined
              ? this.#options.held
                ? 'Listening… (until dictum dictate --end)'
                : `Listening… (stops after ${this.#options.silence} s of silence; Ctrl-C to stop)`
              : `Reading ${path.basename(this.#options.input)}…`,
          )
        },
      })
      if (vad !== null && !recording.heardSpeech && recording.stoppedBy !== 'stopped')
        this.#status('No speech was heard.')
      if (this.#options.held && recording.stoppedBy === 'end') await this.#awaitEnd(recording)
      return recording
    } finally {
      vad?.close()
    }
  }

  /**
   * Held: the source ended (a file, a device gone) before --end. The text is handed on at --end (key
   * release), as always, not while the key is held; --max-seconds still bounds the wait.
   */
  async #awaitEnd(recording: Recording): Promise<void> {
    const seconds = recording.samples.length / 16000
    this.#status(`The audio source ended after ${seconds.toFixed(1)} s; waiting for dictum dictate --end.`)
    // A timer, not AbortSignal.timeout: it keeps the process alive while it waits for the signal.
    const stop = this.#stop.signal
    const abort = this.#abort.signal
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        stop.removeEventListener('abort', done)
        abort.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, Math.max(0, Math.round((this.#options.maxSeconds - seconds) * 1000)))
      stop.addEventListener('abort', done)
      abort.addEventListener('abort', done)
      if (stop.aborted || abort.aborted) done()
    })
    this.#abort.signal.throwIfAborted()
  }

  #source(): AsyncIterable<Float32Array> {
    const { input } = this.#options
    if (input !== undefined) {
      const file = path.resolve(this.#io.cwd, input)
      return this.#app.dictum.audio.decoder.stream(
        { kind: 'file', path: file },
        { chunkSeconds: 0.1 },
        this.#abort.signal,
      )
    }
    const spec = captureSpec(this.#options.backend, this.#options.device, this.#io.env)
    const app = this.#app
    const stop = this.#stop.signal
    return (async function* () {
      const ffmpeg = await app.dictum.audio.decoder.ffmpeg()
      if (!ffmpeg)
        throw new CliError(
          'Recording needs ffmpeg, which was not found: install it (apt-get install ffmpeg) or set audio.ffmpegPath.',
          EXIT.unavailable,
        )
      yield* captureAudio(ffmpeg.path, spec, stop)
    })()
  }

  /** A VAD that completes a piece only after the wanted pause; null (with a note) when there is no model. */
  async #openVad(): Promise<VadSegmenter | null> {
    const config = this.#app.dictum.configStore.current.vad
    const fallback = bundledVadModel()
    try {
      return await VadSegmenter.open(
        { ...config, minSilenceSeconds: this.#options.silence },
        { modelsDir: this.#app.dictum.modelsDir, ...(fallback ? { fallbackModel: fallback } : {}) },
      )
    } catch (err) {
      this.#io.stderr.write(
        `dictum: no voice activity detector (${(err as Error).message}): recording stops at --max-seconds or Ctrl-C. Run: dictum models pull silero-vad\n`,
      )
      return null
    }
  }

  #status(line: string): void {
    if (this.#options.verbose) this.#io.stderr.write(`${line}\n`)
  }
}
