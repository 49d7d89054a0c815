/** Transcription jobs: the queue backend (`jobs.backend`), the executor, the jobs table and the /v1/jobs routes. */

import { asClass, asFunction } from 'awilix/browser'
import { createJobBackend } from '../../jobs/backend.ts'
import { jobsErrors } from '../../jobs/errors.ts'
import { TranscriptionExecutor } from '../../jobs/executor.ts'
import { jobsMigrations } from '../../jobs/migrations.ts'
import type { JobBackend, JobExecutor } from '../../jobs/types.ts'
import type { Feature } from '../../kernel/container.ts'
import { jobsRoutes } from './routes.ts'

declare module '../../kernel/container.ts' {
  interface Cradle {
    jobs: JobBackend
    jobExecutor: JobExecutor
  }
}

export const jobsFeature: Feature = {
  name: 'jobs',
  errors: jobsErrors.table,
  dependencies: ['transcribe', 'dictionary'],
  services: {
    jobExecutor: asClass(TranscriptionExecutor).singleton(),
    jobs: asFunction(({ configStore, db, jobExecutor, logger }) =>
      createJobBackend({ configStore, db, executor: jobExecutor, logger }),
    ).singleton(),
  },
  migrations: jobsMigrations,
  routes: { prefix: '/v1', plugin: jobsRoutes },
  close: (cradle) => cradle.jobs.close(),
}
