/**
 * The jobs API: POST /v1/jobs (one job: a file, a URL or an upload; a batch: a folder or a glob),
 * GET /v1/jobs/:id, GET /v1/jobs?state=…&limit=…&cursor=…, DELETE /v1/jobs/:id (cancel),
 * GET /v1/jobs/:id/events (server-sent events until the job ends) and GET /v1/jobs/:id/result/:format (a
 * result file). docs/jobs.md.
 */

import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import path from 'node:path'
import { Type } from '@sinclair/typebox'
import { errors } from '../../errors/catalogue.ts'
import { parseHistoryLimit } from '../../history/service.ts'
import { textResponse } from '../../http/route-doc.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import { jobsErrors } from '../../jobs/errors.ts'
import { resultsDirOf } from '../../jobs/paths.ts'
import { isFinal, JOB_STATES, type JobEvent, type JobRecord, type JobState } from '../../jobs/types.ts'
import { maskUrlSecrets } from '../../lib/secrets.ts'
import { DOCUMENT_FORMATS, type DocumentFormat } from '../../transcription/formats.ts'
import {
  BatchSchema,
  JobListQuerySchema,
  JobListSchema,
  JobParamsSchema,
  JobSchema,
  ResultParamsSchema,
  WorkersSchema,
} from './schemas.ts'
import { submissionFromRequest } from './submission.ts'

/** A comment line this often keeps proxies and idle timers from closing a quiet event stream. */
const HEARTBEAT_MS = 15_000

const CONTENT_TYPES: Record<DocumentFormat, string> = {
  text: 'text/plain; charset=utf-8',
  json: 'application/json; charset=utf-8',
  verbose_json: 'application/json; charset=utf-8',
  srt: 'application/x-subrip; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
}

const JobOrBatch = Type.Union([JobSchema, BatchSchema])

export const jobsRoutes = routePlugin('jobs', async (app) => {
  const { configStore, uploads } = app.dictum
  const backend = () => app.dictum.jobs
  // Uploads may be as large as any audio upload; JSON bodies keep the app's small limit.
  app.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer', bodyLimit: configStore.current.api.audioBodyLimit },
    (_request, body, done) => done(null, body),
  )
  app.addHook('onReady', async () => backend().start())

  const streams = new Set<ServerResponse>()
  app.addHook('preClose', async () => {
    for (const stream of streams) stream.end()
  })

  const found = async (id: string): Promise<JobRecord> => {
    const job = await backend().get(id)
    if (!job) throw jobsErrors.JOB_NOT_FOUND(id.slice(0, 100))
    return job
  }

  app.post(
    '/jobs',
    {
      onRequest: uploads.claim,
      schema: { response: { 200: JobOrBatch, 201: JobOrBatch } },
      config: {
        doc: {
          summary: 'Queue transcription jobs: a file, folder, glob or URL (JSON), or an upload (form).',
          body: {
            content: {
              'application/json': {
                schema: Type.Object({
                  path: Type.Optional(Type.String()),
                  glob: Type.Optional(Type.String()),
                  url: Type.Optional(Type.String()),
                  formats: Type.Optional(Type.Array(Type.String())),
                  priority: Type.Optional(Type.Integer({ minimum: -100, maximum: 100 })),
                  idempotencyKey: Type.Optional(Type.String()),
                  language: Type.Optional(Type.String()),
                  prompt: Type.Optional(Type.String()),
                }),
              },
              'multipart/form-data': { schema: Type.Object({ file: Type.String({ format: 'binary' }) }) },
            },
          },
          errors: [400, 401, 403, 413, 503],
        },
      },
    },
    async (request, reply) => {
      const submission = await submissionFromRequest(request, configStore.current)
      const outcomes = []
      for (const spec of submission.specs) outcomes.push(await backend().submit(spec))
      const created = outcomes.some((o) => o.created)
      reply.code(created ? 201 : 200)
      if (submission.batchId === null) return shown((outcomes[0] as { job: JobRecord }).job)
      const jobs = outcomes.map((o) => shown(o.job))
      // A batch sent again with its key answers the jobs it made the first time, under their batch id.
      return { batchId: jobs[0]?.batchId ?? submission.batchId, count: jobs.length, jobs }
    },
  )

  app.get(
    '/jobs',
    {
      schema: { querystring: JobListQuerySchema, response: { 200: JobListSchema } },
      config: {
        doc: { summary: 'Jobs, newest first, by state, a page at a time.', errors: [400, 401, 403] },
      },
    },
    async (request) => {
      const page = await backend().list({
        states: parseStates(request.query.state),
        limit: parseHistoryLimit(request.query.limit),
        cursor: parseCursor(request.query.cursor),
      })
      return { count: page.jobs.length, items: page.jobs.map(shown), nextCursor: page.nextCursor }
    },
  )

  // The router prefers this static path to /jobs/:id.
  const workersDoc = {
    summary: 'The processes running jobs (Redis workers, or the service itself): engine, host, throughput.',
    errors: [401, 403, 503],
  }
  app.get(
    '/jobs/workers',
    { schema: { response: { 200: WorkersSchema } }, config: { doc: workersDoc } },
    async () => {
      const workers = await backend().workers()
      return { backend: backend().kind, count: workers.length, items: workers }
    },
  )

  app.get(
    '/jobs/:id',
    {
      schema: { params: JobParamsSchema, response: { 200: JobSchema } },
      config: { doc: { summary: 'One job: state, progress, result or error.', errors: [401, 403, 404] } },
    },
    async (request) => shown(await found(request.params.id)),
  )

  app.delete(
    '/jobs/:id',
    {
      schema: { params: JobParamsSchema, response: { 200: JobSchema } },
      config: { doc: { summary: 'Cancel a job (a running one is stopped).', errors: [401, 403, 404] } },
    },
    async (request) => {
      const job = await backend().cancel(request.params.id)
      if (!job) throw jobsErrors.JOB_NOT_FOUND(request.params.id.slice(0, 100))
      return shown(job)
    },
  )

  const resultDoc = {
    summary: "A completed job's result file in one format.",
    content: textResponse('text/plain', 'The result file.'),
    errors: [400, 401, 403, 404],
  }
  app.get(
    '/jobs/:id/result/:format',
    { schema: { params: ResultParamsSchema }, config: { doc: resultDoc } },
    async (request, reply) => {
      const job = await found(request.params.id)
      const format = request.params.format as DocumentFormat
      if (!(DOCUMENT_FORMATS as readonly string[]).includes(format)) {
        throw errors.INVALID_REQUEST(`unknown format (use: ${DOCUMENT_FORMATS.join(', ')}).`, {
          extra: { param: 'format' },
        })
      }
      const file = job.result?.files[format]
      if (!file) {
        throw errors.INVALID_REQUEST(
          job.state === 'completed'
            ? `the job has no ${format} result (it was asked for: ${job.formats.join(', ')}).`
            : `the job is ${job.state}: results come when it is completed.`,
          { extra: { param: 'format' } },
        )
      }
      const full = path.join(resultsDirOf(configStore.current), file)
      const size = await stat(full).then(
        (s) => s.size,
        () => null,
      )
      if (size === null) throw jobsErrors.JOB_NOT_FOUND(`${job.id}: its ${format} result file is gone`)
      return reply.type(CONTENT_TYPES[format]).header('content-length', size).send(createReadStream(full))
    },
  )

  const eventsDoc = {
    summary: "A job's progress as server-sent events, until it ends.",
    content: textResponse(
      'text/event-stream',
      'Events queued, active, progress, then completed, failed or cancelled.',
    ),
    errors: [401, 403, 404],
  }
  app.get(
    '/jobs/:id/events',
    { schema: { params: JobParamsSchema }, config: { doc: eventsDoc } },
    async (request, reply) => {
      const jobs = backend()
      const queue: JobEvent[] = []
      let wake: (() => void) | null = null
      // Subscribed before the first read, so nothing that happens between the two is missed.
      const unsubscribe = jobs.subscribe(request.params.id, (event) => {
        queue.push(event)
        wake?.()
      })
      let job: JobRecord
      try {
        job = await found(request.params.id)
      } catch (error) {
        unsubscribe()
        throw error
      }
      reply.hijack()
      const raw = reply.raw
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      })
      streams.add(raw)
      const send = (event: JobEvent) =>
        raw.write(`event: ${event.type}\ndata: ${JSON.stringify(shown(event.job))}\n\n`)
      const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS)
      let ended = false
      raw.on('close', () => {
        ended = true
        wake?.()
      })
      try {
        // The state now first: a client that connects late still learns where the job is.
        send({ type: job.state, job })
        let last = job.state
        while (!ended && !isFinal(last)) {
          if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve))
          wake = null
          for (const event of queue.splice(0)) {
            send(event)
            last = event.job.state
            if (isFinal(last)) break
          }
        }
      } finally {
        clearInterval(heartbeat)
        unsubscribe()
        streams.delete(raw)
        raw.end()
      }
    },
  )
})

/**
 * A job as the API shows it: its URL's credentials and signature parameters masked (the record keeps the URL
 * whole: the run needs it).
 */
function shown(job: JobRecord): JobRecord {
  if (job.input.kind !== 'url') return job
  return { ...job, input: { ...job.input, url: maskUrlSecrets(job.input.url) } }
}

/** `state=queued,active` or `state=queued&state=active`; absent: every state. */
function parseStates(raw: unknown): JobState[] {
  if (raw === undefined) return []
  const values = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => String(v).split(','))
  const states: JobState[] = []
  for (const value of values.map((v) => v.trim()).filter(Boolean)) {
    if (!(JOB_STATES as readonly string[]).includes(value)) {
      throw errors.INVALID_REQUEST(
        `unknown state ${JSON.stringify(value.slice(0, 50))} (use: ${JOB_STATES.join(', ')}).`,
        { extra: { param: 'state' } },
      )
    }
    states.push(value as JobState)
  }
  return states
}

/** The backend checks what the cursor says (its own format). */
function parseCursor(raw: unknown): string | null {
  if (raw === undefined || raw === '') return null
  if (typeof raw !== 'string' || raw.length > 200) {
    throw errors.INVALID_REQUEST('cursor must be the nextCursor of a previous page.', {
      extra: { param: 'cursor' },
    })
  }
  return raw
}
