/**
 * `dictum transcribe <files…>`: batch transcription in process, through the same pipeline as
 * POST /v1/transcribe. A file that fails is reported (naming it) and the others are still done.
 */
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { compileReplacements } from '../dictionary/replace.ts'
import { isDictumError } from '../errors/catalogue.ts'
import type { Transcript } from '../transcription/service.ts'
import { CliError, usageError } from './cli-error.ts'
import { describeFsError, writeFileAtomic } from './files.ts'
import { onInterrupt, untilAborted } from './interrupt.ts'
import { type CliIO, EXIT } from './io.ts'
import { GLOBAL_HELP, GLOBAL_OPTIONS } from './options.ts'
import { ProgressBar } from './progress-bar.ts'
import { findServer, SERVER_HELP, SERVER_OPTIONS, type ServerClient, serverChoice } from './server-client.ts'
import { loadCliConfig, withServices } from './services.ts'
import { EXTENSIONS, parseFormat, renderTranscript, type TranscriptFormat } from './transcript-format.ts'

const OPTIONS = {
  ...GLOBAL_OPTIONS,
  format: { type: 'string', short: 'f' },
  'output-dir': { type: 'string', short: 'o' },
  'next-to': { type: 'boolean' },
  engine: { type: 'string' },
  language: { type: 'string' },
  ...SERVER_OPTIONS,
} as const

export const TRANSCRIBE_HELP = `Usage: dictum transcribe [options] <file>...

Transcribes audio files (WAV, MP3, FLAC, OGG, M4A... anything ffmpeg reads) with the selected
speech engine, the dictionary's replacements applied. When a dictum service is running (on the
configured address, or --server), the work goes there and uses its loaded engine; otherwise it
runs in this process.

Options:
  -f, --format FORMAT   text (default), json, verbose_json (OpenAI's), srt or vtt
  --json                Same as --format json
  -o, --output-dir DIR  Write <DIR>/<file name>.<ext> for each file (ext: txt, json,
                        verbose.json, srt, vtt)
  --next-to             Write <file>.<ext> next to each audio file
  --engine ID           Use this engine instead of speech.engine (see 'dictum engines')
  --language CODE       Language hint for engines that take one
${SERVER_HELP}

Without --output-dir or --next-to, transcripts go to stdout: with several files, text, srt and vtt
are each preceded by a '==> file <==' line; json prints one JSON object per line (with "file"),
verbose_json one per line too.
Written files are listed on stdout, one path per line. A progress bar is shown on stderr when it
is a terminal.

Exit status: 0 all files done, 1 any file failed (each failure is reported on stderr, naming the
file; the other files are still done), 2 usage error, 3 speech engine unavailable, 130 Ctrl-C.

${GLOBAL_HELP}
`

/** Errors that would fail every file alike: the batch stops at the first. */
const FATAL = new Set([
  'ENGINE_NOT_FOUND',
  'ENGINE_UNAVAILABLE',
  'ENGINE_LOAD_FAILED',
  'MODEL_NOT_INSTALLED',
  'MODEL_INVALID',
  'CONFIG_INVALID',
  'PLUGIN_LOAD_FAILED',
])

interface Plan {
  files: string[]
  format: TranscriptFormat
  /** Where each transcript is written, or null for stdout. */
  outputOf: ((file: string) => string) | null
  engineId: string | undefined
  language: string | undefined
}

export async function transcribeCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true })
  if (values.help) {
    io.stdout.write(TRANSCRIBE_HELP)
    return EXIT.ok
  }
  const plan = await planBatch(values, positionals, io)
  const checked = await loadCliConfig(values, io)
  // --engine and --data-dir name what this process should use: the running service has its own.
  const inProcessOnly = plan.engineId !== undefined || values['data-dir'] !== undefined
  if (inProcessOnly && values.server !== undefined)
    throw usageError('--engine and --data-dir work in this process only: drop --server (or them).')
  const server = inProcessOnly ? null : await findServer(serverChoice(values), checked.loaded.config, io)
  if (server) return transcribeOnServer(server, plan, io)
  return withServices(
    values,
    io,
    async (app) => {
      const engines = app.dictum.engines
      if (plan.engineId !== undefined && !engines.ids().includes(plan.engineId)) {
        throw usageError(`Unknown engine "${plan.engineId}" (known: ${engines.ids().join(', ')}).`)
      }
      const batch = new Batch(plan, io, {
        transcribe: (file, signal) =>
          app.dictum.transcription.transcribe(
            { kind: 'file', path: path.resolve(io.cwd, file) },
            {
              signal,
              ...(plan.engineId ? { engineId: plan.engineId } : {}),
              ...(plan.language ? { language: plan.language } : {}),
            },
          ),
        replace: (text) => app.dictum.dictionary.applyReplacements(text),
      })
      return batch.run()
    },
    checked,
  )
}

/** The batch through a running service: its engine, its dictionary (for cues cut from word timings). */
async function transcribeOnServer(server: ServerClient, plan: Plan, io: CliIO): Promise<number> {
  const matcher = compileReplacements(await server.replacementRules(AbortSignal.timeout(30_000)))
  const batch = new Batch(plan, io, {
    transcribe: (file, signal) =>
      server.transcribe(path.resolve(io.cwd, file), { language: plan.language, signal }),
    replace: (text) => matcher.apply(text),
  })
  return batch.run()
}

async function planBatch(
  values: { format?: string; json?: boolean; 'output-dir'?: string; 'next-to'?: boolean } & Record<
    string,
    unknown
  >,
  files: string[],
  io: CliIO,
): Promise<Plan> {
  const format = parseFormat(values.format, values.json)
  if (files.length === 0)
    throw usageError('No audio file given. Usage: dictum transcribe [options] <file>...')
  const outputDir = values['output-dir']
  if (outputDir !== undefined && values['next-to'])
    throw usageError('Use either --output-dir or --next-to, not both.')
  const ext = EXTENSIONS[format]
  let outputOf: Plan['outputOf'] = null
  if (values['next-to']) outputOf = (file) => `${path.resolve(io.cwd, file)}.${ext}`
  if (outputDir !== undefined) {
    const dir = path.resolve(io.cwd, outputDir)
    await mkdir(dir, { recursive: true }).catch((err) => {
      throw new CliError(`Could not create ${outputDir}: ${describeFsError(err)}`)
    })
    outputOf = (file) => path.join(dir, `${path.basename(file)}.${ext}`)
  }
  if (outputOf) checkDistinct(files, outputOf)
  return {
    files,
    format,
    outputOf,
    engineId: values.engine as string | undefined,
    language: values.language as string | undefined,
  }
}

function checkDistinct(files: string[], outputOf: (file: string) => string): void {
  const seen = new Map<string, string>()
  for (const file of files) {
    const out = outputOf(file)
    const other = seen.get(out)
    if (other !== undefined && other !== file)
      throw usageError(`${other} and ${file} would both be written to ${out}.`)
    seen.set(out, file)
  }
}

interface BatchDeps {
  transcribe: (file: string, signal: AbortSignal) => Promise<Transcript>
  replace: (text: string) => string
}

class Batch {
  readonly #plan: Plan
  readonly #io: CliIO
  readonly #deps: BatchDeps
  readonly #bar: ProgressBar | null
  readonly #started = performance.now()

  constructor(plan: Plan, io: CliIO, deps: BatchDeps) {
    this.#plan = plan
    this.#io = io
    this.#deps = deps
    this.#bar = io.stderrIsTTY
      ? new ProgressBar({ stream: io.stderr, isTTY: true, label: 'Transcribing', unit: 'count' })
      : null
  }

  async run(): Promise<number> {
    const controller = new AbortController()
    const interrupts = onInterrupt(() => controller.abort())
    let failed = 0
    try {
      for (const [index, file] of this.#plan.files.entries()) {
        this.#progress(index, file)
        if (!(await this.#one(file, index, controller.signal))) failed++
      }
    } finally {
      interrupts.close()
    }
    this.#progress(this.#plan.files.length, undefined)
    this.#bar?.finish()
    return failed > 0 ? EXIT.failure : EXIT.ok
  }

  /** True when the file was done; a failure is reported and the batch goes on (unless it is fatal). */
  async #one(file: string, index: number, signal: AbortSignal): Promise<boolean> {
    try {
      const transcript = await untilAborted(this.#deps.transcribe(file, signal), signal)
      const out = this.#plan.outputOf?.(file)
      const document = renderTranscript(this.#plan.format, file, transcript, {
        compact: out === undefined,
        replace: this.#deps.replace,
      })
      if (out !== undefined) await writeFileAtomic(out, document)
      this.#bar?.clear()
      this.#io.stdout.write(out ?? this.#heading(file, index) + document)
      if (out !== undefined) this.#io.stdout.write('\n')
      return true
    } catch (err) {
      if (signal.aborted) throw new CliError('Interrupted.', EXIT.interrupted)
      if (isDictumError(err) && FATAL.has(err.code)) {
        this.#bar?.clear()
        throw err
      }
      this.#bar?.clear()
      this.#io.stderr.write(`dictum: ${file}: ${(err as Error).message}\n`)
      return false
    }
  }

  /** `==> file <==` before each document when several text/srt/vtt documents share stdout. */
  #heading(file: string, index: number): string {
    if (this.#plan.files.length < 2 || this.#plan.format.endsWith('json')) return ''
    return `${index > 0 ? '\n' : ''}==> ${file} <==\n`
  }

  #progress(done: number, file: string | undefined): void {
    if (!this.#bar) return
    const total = this.#plan.files.length
    const elapsed = (performance.now() - this.#started) / 1000
    const eta = done > 0 ? (elapsed / done) * (total - done) : null
    this.#bar.update({
      current: done,
      total,
      etaSeconds: eta,
      detail: file ? path.basename(file) : undefined,
    })
  }
}
