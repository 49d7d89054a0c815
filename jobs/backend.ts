/**
 * Which queue backend an app uses (`jobs.backend`), and what every backend is built from. The local backend
 * runs jobs in this process with the executor; the Redis backend (jobs/redis/) queues them for `dictum
 * worker`s, which build a {@link JobExecutor} of their own app and run it.
 */
import { LazyJobBackend } from './lazy-backend.ts'
import { LocalJobBackend } from './local/backend.ts'
import type { BackendDeps, JobBackend } from './types.ts'

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
