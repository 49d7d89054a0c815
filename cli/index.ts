/**
 * `dictum <command>`: the command line. Each command calls the same services as the HTTP API, in process,
 * without a running server (except `serve`, which is the server). Everything a command needs is imported
 * when it runs (the config schema alone costs ~140 ms of start-up), so `dictum --version` starts fast.
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { isDictumError } from '../errors/catalogue.ts'
import { readVersion } from '../lib/version.ts'
import { CliError } from './cli-error.ts'
import { type CliIO, EXIT, processIO } from './io.ts'
import { flagsOf, GLOBAL_OPTIONS, quietLogger } from './options.ts'

export { flagsOf, GLOBAL_OPTIONS, quietLogger } from './options.ts'

export type CommandRunner = (args: string[], io: CliIO) => Promise<number>

const USAGE = `Usage: dictum <command> [options]

Commands:
  serve                 Run the service (local HTTP API)
  transcribe FILE...    Transcribe audio files (text, json, srt, vtt)
  dictate               Record from the microphone until a pause, print (copy, type) the text
  history               Show recent dictations
  jobs                  Queue transcription jobs in the service, follow them (submit, list, status, cancel, wait)
  dictionary            Export or import the dictionary (replacements and custom words)
  engines               List speech engines and their status
  models                List, pull, remove and verify speech models
  worker                Run transcription jobs from the Redis queue (jobs.redis.url)
  config                Print the effective config (secrets masked)
  version               Print the version

Global options:
  --config FILE         Config file (else DICTUM_CONFIG, else $XDG_CONFIG_HOME/dictum/config.json)
  --host HOST           Address to bind (else DICTUM_HOST, else api.host)
  --port PORT           Port (else DICTUM_PORT, else api.port)
  --data-dir DIR        Data folder (else DICTUM_DATA_DIR, else dataDir)
  --json                Machine-readable output (commands that print data)
  -h, --help            Help for a command

Exit status: 0 ok, 1 failure, 2 usage error, 3 unavailable (engine, model, device, tool), 130 Ctrl-C.
Run 'dictum <command> --help' for a command's options.
`

const serve: CommandRunner = async (args, io) => {
  const { values } = parseArgs({ args, options: GLOBAL_OPTIONS, allowPositionals: false })
  if (values.help) {
    io.stdout.write('Usage: dictum serve [--config FILE] [--host HOST] [--port PORT] [--data-dir DIR]\n')
    return EXIT.ok
  }
  const { runServer } = await import('../server/server.ts')
  await runServer({ flags: flagsOf(values), env: io.env, cwd: io.cwd })
  return -1 // keeps running until a signal
}

const config: CommandRunner = async (args, io) => {
  const { values } = parseArgs({
    args,
    options: { ...GLOBAL_OPTIONS, schema: { type: 'boolean' } },
    allowPositionals: false,
  })
  if (values.help) {
    io.stdout.write(
      'Usage: dictum config [--config FILE] [--schema]\n\nPrints the effective config as JSON, secrets masked.\n--schema prints the JSON Schema of the config file instead (for editors: "$schema" in the file).\n',
    )
    return EXIT.ok
  }
  if (values.schema) {
    const [{ configJsonSchema }, { ConfigSchema }] = await Promise.all([
      import('../config/json-schema.ts'),
      import('../server/config-schema.ts'),
    ])
    io.stdout.write(`${JSON.stringify(configJsonSchema(ConfigSchema), null, 2)}\n`)
    return EXIT.ok
  }
  const [{ loadCheckedConfig }, { maskSecrets }, { ConfigSchema }] = await Promise.all([
    import('../kernel/config-check.ts'),
    import('../lib/secrets.ts'),
    import('../server/config-schema.ts'),
  ])
  // Plugin options are checked with the rest: every invalid key in one error.
  const { loaded, discovery } = await loadCheckedConfig(ConfigSchema, {
    flags: flagsOf(values),
    env: io.env,
    cwd: io.cwd,
  })
  // Beside the names every secret has, the option names providers declare secret.
  const secretOptions = [...discovery.providers.values()].flatMap((p) => p.definition.secretOptions ?? [])
  const config = maskSecrets(loaded.config, secretOptions)
  io.stdout.write(`${JSON.stringify({ file: loaded.file, config }, null, 2)}\n`)
  return EXIT.ok
}

const version: CommandRunner = async (_args, io) => {
  io.stdout.write(`${readVersion()}\n`)
  return EXIT.ok
}

const models: CommandRunner = async (args, io) => {
  // Global options may come before the subcommand: `dictum models --data-dir D list`.
  const { values, tokens } = parseArgs({ args, options: GLOBAL_OPTIONS, strict: false, tokens: true })
  const consumed = new Set<number>()
  for (const token of tokens) {
    if (token.kind !== 'option' || !['config', 'host', 'port', 'data-dir'].includes(token.name)) continue
    consumed.add(token.index)
    if (token.inlineValue === false) consumed.add(token.index + 1)
  }
  const rest = args.filter((_, i) => !consumed.has(i))
  const [{ loadConfig }, { ConfigSchema }] = await Promise.all([
    import('../config/load.ts'),
    import('../server/config-schema.ts'),
  ])
  const { config } = loadConfig(ConfigSchema, { flags: flagsOf(values), env: io.env, cwd: io.cwd })
  const [{ discoverPlugins }, { createModelManager }, { modelsCommand }] = await Promise.all([
    import('../kernel/discovery.ts'),
    import('../models/feature.ts'),
    import('./models.ts'),
  ])
  // The catalog is what the engines ship: the built-in ones and those named in config `plugins`.
  const manager = createModelManager({
    modelsDir: path.join(config.dataDir, 'models'),
    logger: quietLogger,
    mirror: config.models.mirror,
    discovery: await discoverPlugins({ plugins: config.plugins }),
  })
  const controller = new AbortController()
  const onSigint = () => controller.abort(new Error('interrupted'))
  process.once('SIGINT', onSigint)
  try {
    return await modelsCommand(
      rest,
      {
        stdout: io.stdout,
        stderr: io.stderr,
        stderrIsTTY: io.stderrIsTTY === true,
        signal: controller.signal,
      },
      manager,
    )
  } finally {
    process.off('SIGINT', onSigint)
  }
}

/** Commands whose code is imported only when they run (the app, engines and ffmpeg helpers are heavy). */
const lazy =
  (load: () => Promise<CommandRunner>): CommandRunner =>
  async (args, io) =>
    (await load())(args, io)

export const commands: Record<string, CommandRunner> = {
  serve,
  config,
  version,
  models,
  transcribe: lazy(async () => (await import('./transcribe.ts')).transcribeCommand),
  dictate: lazy(async () => (await import('./dictate.ts')).dictateCommand),
  history: lazy(async () => (await import('./history.ts')).historyCommand),
  jobs: lazy(async () => (await import('./jobs.ts')).jobsCommand),
  dictionary: lazy(async () => (await import('./dictionary.ts')).dictionaryCommand),
  engines: lazy(async () => (await import('./engines.ts')).enginesCommand),
  worker: lazy(async () => (await import('./worker.ts')).workerCommand),
}

/** Runs one command; returns the exit code (-1: the command keeps the process running). */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(USAGE)
    return name === undefined ? EXIT.usage : EXIT.ok
  }
  if (name === '--version') return version(rest, io)
  const command = commands[name]
  if (!command) {
    io.stderr.write(`dictum: unknown command "${name}"\n\n${USAGE}`)
    return EXIT.usage
  }
  try {
    return await command(rest, io)
  } catch (err) {
    const code = reportError(err, io)
    if (code === EXIT.usage) io.stderr.write(`Run 'dictum ${name} --help' for its options.\n`)
    return code
  }
}

function reportError(err: unknown, io: CliIO): number {
  if (err instanceof CliError) {
    io.stderr.write(`dictum: ${err.message}\n`)
    return err.exitCode
  }
  if (isDictumError(err)) {
    io.stderr.write(`dictum: ${err.message}\n`)
    return err.statusCode === 503 ? EXIT.unavailable : EXIT.failure
  }
  const code = (err as { code?: string })?.code
  if (
    code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ||
    code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' ||
    code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL'
  ) {
    io.stderr.write(`dictum: ${(err as Error).message}\n`)
    return EXIT.usage
  }
  io.stderr.write(`dictum: ${(err as Error)?.message ?? String(err)}\n`)
  return EXIT.failure
}
