/**
 * `dictum jobs submit|list|status|cancel|wait|workers`: transcription jobs, always through the running service (it
 * runs them; docs/jobs.md). Found as `dictum transcribe` finds it (cli/server-client.ts): `--server URL`,
 * DICTUM_SERVER, or the configured address. A service on this machine reads files, folders and globs by
 * path; one elsewhere gets each file uploaded (folders and globs expanded here).
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { audioFilesIn, globFiles, hasWildcard } from '../jobs/file-match.ts'
import type { JobRecord } from '../jobs/types.ts'
import type { WorkerStatus } from '../jobs/worker-stats.ts'
import { CliError, usageError } from './cli-error.ts'
import { type CliIO, EXIT } from './io.ts'
import { GLOBAL_HELP, GLOBAL_OPTIONS } from './options.ts'
import { ProgressBar } from './progress-bar.ts'
import { findServer, SERVER_HELP, type ServerClient } from './server-client.ts'
import { loadCliConfig } from './services.ts'

const OPTIONS = {
  ...GLOBAL_OPTIONS,
  server: { type: 'string' },
  format: { type: 'string', short: 'f', multiple: true },
  priority: { type: 'string' },
  key: { type: 'string' },
  wait: { type: 'boolean' },
  state: { type: 'string', multiple: true },
  limit: { type: 'string', short: 'n' },
} as const

/** How often `wait` asks for the jobs' progress. */
const POLL_MS = 250

export const JOBS_HELP = `Usage: dictum jobs <command> [options]

Transcription jobs, run by the dictum service (start it with 'dictum serve').

Commands:
  submit FILE|DIR|GLOB...   Queue one job per file (a folder: its audio files; quote globs: '/a/**/*.wav')
    -f, --format F          Result formats: text, json, verbose_json, srt, vtt (repeat or comma-separate;
                            default json)
    --priority N            -100..100, higher runs sooner (default 0)
    --key K                 Idempotency key: the same key again gives the same jobs
    --wait                  Then wait for them as 'jobs wait' does
  list [--state S]          Jobs, newest first (S: queued, active, completed, failed, cancelled)
    -n, --limit N           How many (default 100)
  status ID                 One job
  cancel ID...              Cancel jobs (a running one is stopped)
  wait ID...                Wait for jobs to end, with a progress bar; exit 1 if any did not complete
  workers                   The processes running jobs: Redis workers, or the service itself

Options:
  --json                    Print the service's JSON
${SERVER_HELP.split('\n')[0]}
${SERVER_HELP.split('\n')[1]}

${GLOBAL_HELP}
`

export async function jobsCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true })
  const [sub, ...rest] = positionals
  if (values.help || sub === undefined) {
    io.stdout.write(JOBS_HELP)
    return sub === undefined && !values.help ? EXIT.usage : EXIT.ok
  }
  if (!['submit', 'list', 'status', 'cancel', 'wait', 'workers'].includes(sub)) {
    throw usageError(`unknown jobs command "${sub}" (use submit, list, status, cancel, wait or workers).`)
  }
  if (sub !== 'list' && sub !== 'workers' && rest.length === 0)
    throw usageError(`dictum jobs ${sub} needs ${sub === 'submit' ? 'files' : 'job ids'}.`)
  const checked = await loadCliConfig(values, io)
  const server = await findServer(
    typeof values.server === 'string' ? { server: values.server } : {},
    checked.loaded.config,
    io,
  )
  if (!server) {
    throw new CliError(
      'no dictum service is running: jobs run in the service. Start it with dictum serve (or name one with --server).',
      EXIT.unavailable,
    )
  }
  const json = values.json === true
  switch (sub) {
    case 'submit': {
      const jobs = await submit(server, rest, values, io)
      if (values.wait)
        return wait(
          server,
          jobs.map((j) => j.id),
          io,
          json,
        )
      if (json) io.stdout.write(`${JSON.stringify(jobs, null, 2)}\n`)
      else for (const job of jobs) io.stdout.write(`${jobLine(job)}\n`)
      return EXIT.ok
    }
    case 'list': {
      const query = new URLSearchParams()
      for (const state of values.state ?? []) query.append('state', state)
      if (values.limit !== undefined) query.set('limit', values.limit)
      const page = (await server.json('GET', `/v1/jobs?${query}`)) as { items: JobRecord[] }
      if (json) io.stdout.write(`${JSON.stringify(page, null, 2)}\n`)
      else for (const job of page.items) io.stdout.write(`${jobLine(job)}\n`)
      return EXIT.ok
    }
    case 'status': {
      const job = (await server.json('GET', `/v1/jobs/${encodeURIComponent(rest[0] as string)}`)) as JobRecord
      io.stdout.write(json ? `${JSON.stringify(job, null, 2)}\n` : statusText(job))
      return EXIT.ok
    }
    case 'cancel': {
      for (const id of rest) {
        const job = (await server.json('DELETE', `/v1/jobs/${encodeURIComponent(id)}`)) as JobRecord
        io.stdout.write(json ? `${JSON.stringify(job)}\n` : `${jobLine(job)}\n`)
      }
      return EXIT.ok
    }
    case 'workers': {
      const workers = (await server.json('GET', '/v1/jobs/workers')) as { items: WorkerStatus[] }
      if (json) io.stdout.write(`${JSON.stringify(workers, null, 2)}\n`)
      else for (const worker of workers.items) io.stdout.write(`${workerLine(worker)}\n`)
      return EXIT.ok
    }
    default:
      return wait(server, rest, io, json)
  }
}

/** `host:pid  engine  active/concurrency  N done  X s of audio  Y× real time`. */
export function workerLine(worker: WorkerStatus): string {
  return [
    worker.id,
    worker.engine,
    `${worker.active}/${worker.concurrency} running`,
    `${worker.done} done`,
    `${worker.audioSeconds} s of audio`,
    `${worker.throughput}× real time`,
  ].join('  ')
}

type Values = { format?: string[]; priority?: string; key?: string }

async function submit(
  server: ServerClient,
  targets: string[],
  values: Values,
  io: CliIO,
): Promise<JobRecord[]> {
  const fields = {
    ...(values.format ? { formats: values.format.join(',') } : {}),
    ...(values.priority !== undefined ? { priority: parsePriority(values.priority) } : {}),
  }
  const jobs: JobRecord[] = []
  for (const [index, target] of targets.entries()) {
    const absolute = path.resolve(io.cwd, target)
    // A key per target, so that `submit --key K a.wav b.wav` again gives the same two jobs.
    const key =
      values.key === undefined
        ? {}
        : { idempotencyKey: targets.length > 1 ? `${values.key}:${index}` : values.key }
    if (server.sameMachine) {
      const body = { ...(hasWildcard(target) ? { glob: absolute } : { path: absolute }), ...fields, ...key }
      const answer = (await server.json('POST', '/v1/jobs', body)) as JobRecord | { jobs: JobRecord[] }
      jobs.push(...('jobs' in answer ? answer.jobs : [answer]))
      continue
    }
    for (const [n, file] of (await localFiles(absolute, target)).entries()) {
      const form = new FormData()
      form.append('file', new Blob([await readFile(file)]), path.basename(file))
      for (const [name, value] of Object.entries({ ...fields, ...key })) {
        form.append(name, name === 'idempotencyKey' ? `${value}:${n}` : String(value))
      }
      jobs.push((await server.form('/v1/jobs', form, new AbortController().signal)) as JobRecord)
    }
  }
  return jobs
}

/** For a service elsewhere: the files this target names here. */
async function localFiles(absolute: string, target: string): Promise<string[]> {
  if (hasWildcard(target)) return globFiles(absolute)
  const files = await audioFilesIn(absolute).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOTDIR') return [absolute]
    throw new CliError(`cannot read ${target}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`)
  })
  if (files.length === 0) throw new CliError(`no audio files in ${target}.`)
  return files
}

function parsePriority(raw: string): number {
  if (!/^[-+]?\d+$/.test(raw.trim())) throw usageError(`--priority must be a whole number, got "${raw}".`)
  return Number(raw)
}

/** Polls the jobs until each has ended; a progress bar on stderr; exit 1 when any did not complete. */
async function wait(server: ServerClient, ids: string[], io: CliIO, json: boolean): Promise<number> {
  const bar = new ProgressBar({
    stream: io.stderr,
    isTTY: io.stderrIsTTY ?? false,
    label: 'jobs',
    unit: 'count',
  })
  const ended = new Map<string, JobRecord>()
  for (;;) {
    let running: JobRecord | undefined
    for (const id of ids) {
      if (ended.has(id)) continue
      const job = (await server.json('GET', `/v1/jobs/${encodeURIComponent(id)}`)) as JobRecord
      if (['completed', 'failed', 'cancelled'].includes(job.state)) ended.set(id, job)
      else if (job.state === 'active') running ??= job
    }
    const detail = running ? `${running.id} ${Math.round(running.progress * 100)}%` : undefined
    bar.update({ current: ended.size, total: ids.length, detail })
    if (ended.size === ids.length) break
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
  bar.finish()
  const jobs = ids.map((id) => ended.get(id) as JobRecord)
  if (json) io.stdout.write(`${JSON.stringify(jobs, null, 2)}\n`)
  else for (const job of jobs) io.stdout.write(`${jobLine(job)}\n`)
  return jobs.every((j) => j.state === 'completed') ? EXIT.ok : EXIT.failure
}

function inputOf(job: JobRecord): string {
  const { input } = job
  return input.kind === 'path' ? input.path : input.kind === 'url' ? input.url : input.filename
}

/** `job_…  completed  100%  /audio/a.wav  → job_…/a.json` (or the error). */
export function jobLine(job: JobRecord): string {
  const parts = [
    job.id,
    job.state.padEnd(9),
    `${String(Math.round(job.progress * 100)).padStart(3)}%`,
    inputOf(job),
  ]
  if (job.result) parts.push(`→ ${Object.values(job.result.files).join(', ')}`)
  if (job.state === 'failed' && job.error) parts.push(`(${job.error.message})`)
  return parts.join('  ')
}

function statusText(job: JobRecord): string {
  const lines = [
    `id        ${job.id}`,
    `state     ${job.state} (${Math.round(job.progress * 100)}%, attempt ${job.attempts} of ${job.maxAttempts})`,
    `input     ${inputOf(job)}`,
    `priority  ${job.priority}`,
    `created   ${job.createdAt}`,
  ]
  if (job.runner) lines.push(`runner    ${job.runner.worker} on ${job.runner.host} (pid ${job.runner.pid})`)
  if (job.result) {
    lines.push(`files     ${Object.values(job.result.files).join(', ')} (in jobs.resultsDir)`)
    lines.push(`text      ${job.result.text}`)
  }
  if (job.error) lines.push(`error     ${job.error.message}`)
  return `${lines.join('\n')}\n`
}
