/**
 * `dictum worker [--concurrency N]`: runs transcription jobs from the Redis queue (`jobs.redis.url`) on this
 * machine's engines, with the same config file as `dictum serve`, until SIGTERM or Ctrl-C. See
 * docs/scaling.md.
 */
import { parseArgs } from 'node:util'
import { TranscriptionExecutor } from '../jobs/executor.ts'
import { RedisJobWorker } from '../jobs/redis/worker.ts'
import { buildApp } from '../server/app.ts'
import { CliError, usageError } from './cli-error.ts'
import { type CliIO, EXIT } from './io.ts'
import { GLOBAL_HELP, GLOBAL_OPTIONS } from './options.ts'
import { loadCliConfig } from './services.ts'

const OPTIONS = {
  ...GLOBAL_OPTIONS,
  concurrency: { type: 'string', short: 'c' },
} as const

/** How long a stop (SIGTERM, Ctrl-C) lets runs finish before handing them back to the queue. */
const GRACE_MS = 10_000

export const WORKER_HELP = `Usage: dictum worker [--concurrency N] [options]

Runs transcription jobs from the Redis queue (config jobs.redis.url) with this machine's speech
engines, the same config file as 'dictum serve'. Start as many as you like, on any machine that
reaches Redis and the audio (a shared folder mounted as jobs.resultsDir, or URL inputs); see
docs/scaling.md. Long files are cut into parts that any worker runs.

SIGTERM or Ctrl-C: takes no more jobs, lets the running ones finish for ${GRACE_MS / 1000} s, then hands
them back to the queue; a second signal exits at once (the queue runs its jobs again later).

Options:
  -c, --concurrency N   Jobs run at once (default: jobs.concurrency); each has its own engine process

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
  // Each run has an engine process of its own: the engine's concurrency follows the worker's.
  const configured = config.speech.concurrency
  const speech = {
    ...config.speech,
    concurrency: configured === 'auto' ? concurrency : Math.max(configured, concurrency),
  }
  const app = await buildApp(
    { ...config, speech },
    { configFile: checked.loaded.file, discovery: checked.discovery },
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
    { concurrency, graceMs: GRACE_MS },
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
