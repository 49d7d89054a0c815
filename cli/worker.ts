/**
 * `dictum worker [--concurrency N]`: runs transcription jobs from the Redis queue (`jobs.redis.url`) on this
 * machine's engines, with the same config file as `dictum serve`, until SIGTERM or Ctrl-C. See
 * docs/scaling.md.
 */
import { parseArgs } from 'node:util'
import { TranscriptionExecutor } from '../jobs/executor.ts'
import { RedisJobWorker } from '../jobs/redis/worker.ts'
import { createEngineRunner } from '../kernel/engine-runner/index.ts'
import { buildApp } from '../server/app.ts'
import { CliError, usageError } from './cli-error.ts'
import { type CliIO, EXIT } from './io.ts'
import { GLOBAL_HELP, GLOBAL_OPTIONS } from './options.ts'
import { loadCliConfig } from './services.ts'

const OPTIONS = {
  ...GLOBAL_OPTIONS,
  concurrency: { type: 'string', short: 'c' },
  'grace-seconds': { type: 'string' },
} as const

/** How long a stop (SIGTERM, Ctrl-C) lets runs finish before handing them back to the queue, by default. */
const GRACE_SECONDS = 10

export const WORKER_HELP = `Usage: dictum worker [--concurrency N] [--grace-seconds S] [options]

Runs transcription jobs from the Redis queue (config jobs.redis.url) with this machine's speech
engines, the same config file as 'dictum serve'. Start as many as you like, on any machine that
reaches Redis and the audio (a shared folder mounted as jobs.resultsDir, or URL inputs); see
docs/scaling.md. Long files are cut into parts that any worker runs.

SIGTERM or Ctrl-C: takes no more jobs, lets the running ones finish for --grace-seconds (default
${GRACE_SECONDS} s), then hands them back to the queue (no attempt counted); a second signal exits at once
(the queue runs its jobs again later).

Options:
  -c, --concurrency N   Jobs run at once (default: jobs.concurrency); each has its own engine process
  --grace-seconds S     How long a stop lets running jobs finish (0 to 3600, default ${GRACE_SECONDS})

${GLOBAL_HELP}
`

export async function workerCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({ args, options: OPTIONS, allowPositionals: false })
  if (values.help) {
    io.stdout.write(WORKER_HELP)
    return EXIT.ok
  }
  const checked = await loadCliConfig(values, io)
  const { config } = checked.loaded
  if (!config.jobs.redis.url)
    throw usageError('dictum worker takes jobs from Redis: set jobs.redis.url in the config file.')
  const concurrency = values.concurrency === undefined ? config.jobs.concurrency : Number(values.concurrency)
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw usageError('--concurrency must be a whole number from 1 to 64.')
  const graceSeconds = values['grace-seconds'] === undefined ? GRACE_SECONDS : Number(values['grace-seconds'])
  if (!Number.isFinite(graceSeconds) || graceSeconds < 0 || graceSeconds > 3600)
    throw usageError('--grace-seconds must be a number of seconds from 0 to 3600.')
  // Each run has an engine process of its own: the engine's concurrency follows the worker's.
  const configured = config.speech.concurrency
  const speech = {
    ...config.speech,
    concurrency: configured === 'auto' ? concurrency : Math.max(configured, concurrency),
  }
  const runnerFactory = io.runnerFactory ?? createEngineRunner
  const app = await buildApp(
    { ...config, speech },
    {
      configFile: checked.loaded.file,
      discovery: checked.discovery,
      runnerFactory,
    },
  )
  const { transcription, dictionary, configStore, audio } = app.dictum
  const worker = new RedisJobWorker(
    {
      configStore,
      transcription,
      audio,
      executor: new TranscriptionExecutor({ transcription, dictionary, configStore }),
      logger: app.log,
    },
    { concurrency, graceMs: graceSeconds * 1000 },
  )
  try {
    await worker.start()
  } catch (error) {
    await worker.close().catch(() => {})
    await app.close()
    throw new CliError(`could not start the worker: ${(error as Error).message}`, EXIT.unavailable)
  }
  await new Promise<void>((resolve) => {
    let signals = 0
    const onSignal = (signal: NodeJS.Signals) => {
      if (++signals > 1) process.exit(130)
      app.log.info({ signal }, 'worker stopping')
      resolve()
    }
    process.on('SIGTERM', onSignal)
    process.on('SIGINT', onSignal)
  })
  await worker.close()
  await app.close()
  return EXIT.ok
}
