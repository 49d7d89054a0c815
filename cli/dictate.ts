/**
 * `dictum dictate`: records from the microphone (or `--input FILE`) until a pause, runs the dictation
 * pipeline of POST /v1/dictate (engine, replacements, AI enhancement, history), prints the text, and
 * optionally copies it to the clipboard or types it into the focused window.
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { encodeWav16 } from '../audio/wav-encode.ts'
import type { DictumApp } from '../http/app.ts'
import { VadSegmenter } from '../vad/index.ts'
import { bundledVadModel } from '../vad/service.ts'
import { captureAudio, captureSpec } from './capture.ts'
import { CliError, usageError } from './cli-error.ts'
import { clipboardTool, type DesktopTool, runTool, typingTool } from './desktop-tools.ts'
import { onInterrupt, untilAborted } from './interrupt.ts'
import { type CliIO, EXIT } from './io.ts'
import { liveDictation } from './live-dictation.ts'
import { GLOBAL_HELP, GLOBAL_OPTIONS } from './options.ts'
import { type Recording, recordUntilPause } from './record-until-pause.ts'
import { findServer, SERVER_HELP, SERVER_OPTIONS, type ServerClient, serverChoice } from './server-client.ts'
import { loadCliConfig, withServices } from './services.ts'

const OPTIONS = {
  ...GLOBAL_OPTIONS,
  silence: { type: 'string' },
  'max-seconds': { type: 'string' },
  backend: { type: 'string' },
  device: { type: 'string' },
  input: { type: 'string', short: 'i' },
  copy: { type: 'boolean', short: 'c' },
  type: { type: 'boolean', short: 't' },
  'app-name': { type: 'string' },
  'window-title': { type: 'string' },
  verbose: { type: 'boolean', short: 'v' },
  live: { type: 'boolean', short: 'l' },
  ...SERVER_OPTIONS,
} as const

const DEFAULT_SILENCE = 1.5
const DEFAULT_MAX_SECONDS = 300
const DEFAULT_LIVE_SILENCE = 0.5

export const DICTATE_HELP = `Usage: dictum dictate [options]

Records from the microphone until you pause, then transcribes it like POST /v1/dictate
(engine, dictionary replacements, AI enhancement when ai.provider is set), stores it in the
history and prints the text. When a dictum service is running (on the configured address, or
--server), the recording is sent there and uses its loaded engine. Ctrl-C stops the recording early and keeps what was said; a
second Ctrl-C aborts.

With --live, the text appears while you speak: each utterance (ended by a pause) is shown as it
grows, stored in history when it ends, and the whole text is printed when you stop (Ctrl-C, the
end of --input, or --max-seconds). A file given with --input is read in real time, as if spoken.

Options:
  -l, --live            Live dictation: text while you speak, until Ctrl-C
  --silence SECONDS     Pause that ends the recording, after speech (default ${DEFAULT_SILENCE});
                        with --live, the pause that ends an utterance (default ${DEFAULT_LIVE_SILENCE})
  --max-seconds N       Longest recording (default ${DEFAULT_MAX_SECONDS})
  --backend NAME        ffmpeg input device: pulse (PulseAudio, PipeWire), alsa, avfoundation
                        (macOS); default auto: pulse when its socket exists, else alsa
  --device NAME         Input device (default: "default"; avfoundation ":0")
  -i, --input FILE      Read this audio file instead of the microphone, with the same
                        stop-at-pause logic
  -c, --copy            Copy the text to the clipboard (wl-copy, xclip, xsel or pbcopy)
  -t, --type            Type the text into the focused window (wtype, xdotool or ydotool)
  --app-name NAME       Application name stored with the history entry
  --window-title TEXT   Window title stored with the history entry
  --json                Print the history entry as JSON instead of the text
  -v, --verbose         Status lines on stderr (listening, transcribing) even when not a terminal
${SERVER_HELP}

Exit status: 0 ok, 1 failure (nothing recognised, engine error, tool failed), 2 usage error,
3 unavailable (microphone, speech engine, clipboard or typing tool), 130 aborted.

${GLOBAL_HELP}
`

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
}

export async function dictateCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({ args, options: OPTIONS, allowPositionals: false })
  if (values.help) {
    io.stdout.write(DICTATE_HELP)
    return EXIT.ok
  }
  if (values.input !== undefined && (values.backend !== undefined || values.device !== undefined))
    throw usageError('--input replaces the microphone: it cannot be used with --backend or --device.')
  // The tools are looked up first: a missing one is reported before anyone speaks.
  const tools: DesktopTool[] = []
  if (values.copy) tools.push(clipboardTool(io.env))
  if (values.type) tools.push(typingTool(io.env))
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
  }
  const checked = await loadCliConfig(values, io)
  if (values['data-dir'] !== undefined && values.server !== undefined)
    throw usageError('--data-dir works in this process only: drop --server (or it).')
  const server =
    values['data-dir'] !== undefined
      ? null
      : await findServer(serverChoice(values), checked.loaded.config, io)
  return withServices(values, io, (app) => new Dictation(app, io, options, server).run(), checked)
}

function seconds(raw: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max)
    throw usageError(`${name} must be a number of seconds from ${min} to ${max}, got "${raw}".`)
  return value
}

class Dictation {
  readonly #app: DictumApp
  readonly #io: CliIO
  readonly #options: DictateOptions
  /** First Ctrl-C: stop recording. */
  readonly #stop = new AbortController()
  /** Second Ctrl-C (or Ctrl-C while transcribing): abort. */
  readonly #abort = new AbortController()
  #recording = true
  /** A running dictum service that does the dictation with its loaded engine, or null (in process). */
  readonly #server: ServerClient | null

  constructor(app: DictumApp, io: CliIO, options: DictateOptions, server: ServerClient | null) {
    this.#app = app
    this.#io = io
    this.#options = options
    this.#server = server
  }

  async run(): Promise<number> {
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

  async #run(): Promise<number> {
    if (this.#options.live) return this.#live()
    const engine = this.#warmEngine()
    const recording = await this.#record()
    this.#recording = false
    engine.failure()
    if (recording.samples.length === 0) throw new CliError('Nothing was recorded.')
    this.#status(`Transcribing ${(recording.samples.length / 16000).toFixed(1)} s of audio…`)
    const { entry, storeError } = await untilAborted(
      this.#dictate(encodeWav16(recording.samples)),
      this.#abort.signal,
    )
    if (entry.finalText.trim() === '') throw new CliError('No speech was recognised; nothing was stored.')
    // The text is what the user dictated for: it is delivered even when history could not keep it.
    if (storeError !== null) this.#io.stderr.write(`dictum: not stored in history: ${storeError}\n`)
    this.#io.stdout.write(this.#options.json ? `${JSON.stringify(entry, null, 2)}\n` : `${entry.finalText}\n`)
    for (const tool of this.#options.tools) await runTool(tool, entry.finalText, this.#io.env)
    return EXIT.ok
  }

  /** `--live`: text while speaking, through the running service's realtime session or this process's. */
  async #live(): Promise<number> {
    const { text, utterances } = await liveDictation(
      this.#app,
      this.#io,
      {
        silenceSeconds: this.#options.silence,
        maxSeconds: this.#options.maxSeconds,
        input: this.#options.input,
        appName: this.#options.appName,
        windowTitle: this.#options.windowTitle,
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
    for (const tool of this.#options.tools) await runTool(tool, text, this.#io.env)
    return EXIT.ok
  }

  /** The dictation pipeline on the recording: the running service's, else this process's. */
  async #dictate(wav: Buffer): Promise<{ entry: { finalText: string }; storeError: string | null }> {
    const fields = { appName: this.#options.appName, windowTitle: this.#options.windowTitle }
    if (this.#server) return this.#server.dictate(wav, fields, this.#abort.signal)
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
    const vad = await this.#openVad()
    try {
      const recording = await recordUntilPause(this.#source(), {
        vad,
        maxSeconds: this.#options.maxSeconds,
        stop: this.#stop.signal,
        signal: this.#abort.signal,
        onAudio: () =>
          this.#status(
            this.#options.input === undefined
              ? `Listening… (stops after ${this.#options.silence} s of silence; Ctrl-C to stop)`
              : `Reading ${path.basename(this.#options.input)}…`,
          ),
      })
      if (vad !== null && !recording.heardSpeech && recording.stoppedBy !== 'stopped')
        this.#status('No speech was heard.')
      return recording
    } finally {
      vad?.close()
    }
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
