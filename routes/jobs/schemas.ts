/** The jobs API's answers (response schemas: they serialize the bodies and document them in OpenAPI). */
import { Type } from '@sinclair/typebox'
import { JOB_STATES } from '../../jobs/types.ts'
import { DOCUMENT_FORMATS } from '../../transcription/formats.ts'

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])
const FormatName = Type.Union(DOCUMENT_FORMATS.map((f) => Type.Literal(f)))

export const JobSchema = Type.Object({
  id: Type.String(),
  state: Type.Union(JOB_STATES.map((s) => Type.Literal(s))),
  progress: Type.Number({ minimum: 0, maximum: 1 }),
  input: Type.Union([
    Type.Object({ kind: Type.Literal('path'), path: Type.String() }),
    Type.Object({ kind: Type.Literal('url'), url: Type.String() }),
    Type.Object({ kind: Type.Literal('upload'), file: Type.String(), filename: Type.String() }),
  ]),
  formats: Type.Array(FormatName),
  priority: Type.Integer(),
  idempotencyKey: Nullable(Type.String()),
  batchId: Nullable(Type.String()),
  language: Nullable(Type.String()),
  prompt: Nullable(Type.String()),
  attempts: Type.Integer(),
  maxAttempts: Type.Integer(),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  result: Type.Union([
    Type.Object({
      text: Type.String(),
      durationSeconds: Type.Number(),
      engine: Type.String(),
      provider: Type.String(),
      language: Nullable(Type.String()),
      files: Type.Record(Type.String(), Type.String(), {
        description:
          'Each format’s file, relative to jobs.resultsDir; GET /v1/jobs/{id}/result/{format} serves it.',
      }),
      processingSeconds: Type.Number(),
    }),
    Type.Null(),
  ]),
  runner: Type.Union([
    Type.Object({
      host: Type.String(),
      pid: Type.Integer(),
      worker: Type.String(),
      engine: Nullable(Type.String()),
    }),
    Type.Null(),
  ]),
  createdAt: Type.String(),
  startedAt: Nullable(Type.String()),
  finishedAt: Nullable(Type.String()),
})

export const BatchSchema = Type.Object({
  batchId: Type.String(),
  count: Type.Integer(),
  jobs: Type.Array(JobSchema),
})

export const JobListSchema = Type.Object({
  count: Type.Integer(),
  items: Type.Array(JobSchema),
  nextCursor: Nullable(Type.String()),
})

export const WorkerStatusSchema = Type.Object({
  id: Type.String(),
  host: Type.String(),
  pid: Type.Integer(),
  engine: Type.String(),
  concurrency: Type.Integer(),
  active: Type.Integer(),
  done: Type.Integer(),
  audioSeconds: Type.Number(),
  throughput: Type.Number(),
  startedAt: Type.String(),
  seenAt: Type.String(),
})

export const WorkersSchema = Type.Object({
  backend: Type.Union([Type.Literal('local'), Type.Literal('redis')]),
  count: Type.Integer(),
  items: Type.Array(WorkerStatusSchema),
})

export const JobListQuerySchema = Type.Object({
  state: Type.Optional(Type.Unknown()),
  limit: Type.Optional(Type.Unknown()),
  cursor: Type.Optional(Type.Unknown()),
})

export const JobParamsSchema = Type.Object({ id: Type.String() })
export const ResultParamsSchema = Type.Object({ id: Type.String(), format: Type.String() })
