/**
 * Which queue backend an app uses (`jobs.backend`), and what every backend is built from. The local backend
 * runs jobs in this process with the executor; the Redis backend (jobs/redis/) queues them for `dictum
 * worker`s, which build a {@link JobExecutor} of their own app and run it.
 */
import type { ConfigStore } from '../kernel/config-store.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import type { Db } from '../storage/database.ts'
import { LazyJobBackend } from './lazy-backend.ts'
import { LocalJobBackend } from './local/backend.ts'
import type { JobBackend, JobExecutor } from './types.ts'

export interface BackendDeps {
  /** The config in force (`jobs.concurrency` applies live). */
  configStore: ConfigStore
  /** The app's database (the local backend keeps its jobs there). */
  db: Db
  executor: JobExecutor
  logger: PluginLogger
}

export function createJobBackend(deps: BackendDeps): JobBackend {
  switch (deps.configStore.current.jobs.backend) {
    case 'local':
      return new LocalJobBackend(deps)
    case 'redis':
      // BullMQ and ioredis load when the backend starts, not with the service's own modules.
      return new LazyJobBackend(
        'redis',
        async () => new (await import('./redis/backend.ts')).RedisJobBackend(deps),
      )
  }
}
