/**
 * Connections to the Redis of `jobs.redis.url`, with `jobs.redis.options` passed to ioredis as they are
 * (username, password, tls, db…: see docs/scaling.md). Two kinds:
 *
 * - the service's (`failFast`): a command sent while Redis is down fails at once (the API answers 503
 *   JOBS_UNAVAILABLE) instead of holding the request until Redis is back;
 * - a worker's: commands wait for the reconnection (BullMQ's blocking reads need `maxRetriesPerRequest:
 *   null`), so a Redis restart only pauses the workers.
 *
 * ioredis reconnects by itself either way.
 */

import { Redis, type RedisOptions } from 'ioredis'
import type { DictumConfig } from '../../config/schema.ts'
import { redactUrl } from '../../lib/secrets.ts'
import { jobsErrors } from '../errors.ts'

export function connectRedis(config: Readonly<DictumConfig>, mode: { failFast: boolean }): Redis {
  const { url, options } = config.jobs.redis
  if (!url) throw jobsErrors.JOBS_UNAVAILABLE('jobs.backend is "redis" but jobs.redis.url is not set.')
  const own: RedisOptions = mode.failFast
    ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true }
    : { maxRetriesPerRequest: null, lazyConnect: true }
  return new Redis(url, { ...(options as RedisOptions), ...own })
}

/** The address for logs and errors: the URL through the one redaction (no credentials, no query). */
export function redisAddress(url: string): string {
  return redactUrl(url)
}
