/**
 * The `jobs` config section: the transcription job queue (local or Redis), its results and the
 * fetching of audio from URLs.
 * Composed with the other sections by server/config-schema.ts.
 */
import { type Static, Type } from '@sinclair/typebox'
import { configSection } from '../config/schema.ts'

/** A host pattern of `jobs.urlAllow`/`jobs.urlDeny`: a name, `*.domain`, an IP address or a range (CIDR). */
export const HOST_PATTERN = '^(?:\\*\\.)?[A-Za-z0-9_.-]+$|^[0-9A-Fa-f:.]+(?:/[0-9]{1,3})?$'

export const JobsSchema = Type.Object(
  {
    backend: Type.Union([Type.Literal('local'), Type.Literal('redis')], {
      default: 'local',
      description:
        'Where transcription jobs queue: `local` (in this process, kept in the database) or `redis` (BullMQ on `jobs.redis.url`, run by `dictum worker`s).',
    }),
    resultsDir: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'Folder of job results and uploaded audio (null: `<dataDir>/jobs`).',
    }),
    concurrency: Type.Integer({
      minimum: 1,
      maximum: 64,
      default: 1,
      description: 'Jobs the local backend (or one worker) runs at once.',
    }),
    attempts: Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 3,
      description: 'Runs of a job before it fails (a run cut short by a restart counts).',
    }),
    maxUrlBytes: Type.Integer({
      minimum: 1024,
      default: 1_000_000_000,
      description: 'Largest audio a job fetches from a URL, in bytes.',
    }),
    urlTimeoutMs: Type.Integer({
      minimum: 1000,
      default: 600_000,
      description: 'Time limit of fetching a job’s audio from a URL.',
    }),
    urlMinBytesPerSecond: Type.Integer({
      minimum: 0,
      default: 8192,
      description:
        'Slowest fetch of a job’s audio from a URL: one that receives fewer bytes per second than this over a window of `jobs.urlRateWindowMs` (the first window, from the request, is the grace period) is abandoned (0: no minimum).',
    }),
    urlRateWindowMs: Type.Integer({
      minimum: 100,
      default: 30_000,
      description: 'The window over which `jobs.urlMinBytesPerSecond` is measured, in milliseconds.',
    }),
    urlAllow: Type.Array(Type.String({ pattern: HOST_PATTERN }), {
      default: [],
      description:
        'Hosts jobs may fetch audio from: names (`media.example.com`), `*.example.com`, addresses or ranges (`10.0.0.0/8`). Empty: any host but loopback, link-local and unspecified addresses, which are fetched only when listed here.',
    }),
    urlDeny: Type.Array(Type.String({ pattern: HOST_PATTERN }), {
      default: [],
      description:
        'Hosts jobs never fetch audio from (same patterns as `jobs.urlAllow`), checked against the name and every address it resolves to, at each redirect.',
    }),
    redis: Type.Object(
      {
        url: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
          default: null,
          description: 'Redis of the `redis` backend, e.g. `redis://127.0.0.1:6379` (`rediss://` for TLS).',
        }),
        options: Type.Record(Type.String(), Type.Unknown(), {
          default: {},
          description: 'Connection options passed to ioredis as they are (username, password, tls, db…).',
        }),
        lockDurationMs: Type.Integer({
          minimum: 1000,
          default: 30_000,
          description:
            'A worker holds its job’s lock this long and renews it every half of it; a worker that died (kill -9, lost machine) lets it lapse, and its job is run again.',
        }),
        stalledIntervalMs: Type.Integer({
          minimum: 500,
          default: 30_000,
          description: 'How often workers look for jobs whose lock lapsed, to run them again.',
        }),
        retryDelayMs: Type.Integer({
          minimum: 0,
          default: 1000,
          description: 'Wait before a failed run is tried again, doubled at each further attempt.',
        }),
        fanOutSeconds: Type.Number({
          minimum: 0,
          default: 300,
          description:
            'A file longer than this (seconds) is cut at pauses into parts that run on any worker in parallel and are joined in order (0: never).',
        }),
        partSeconds: Type.Number({
          exclusiveMinimum: 0,
          default: 60,
          description:
            'Audio in one part of a fanned-out file, in seconds (whole VAD pieces, so about this much).',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false, default: {} },
)

export const jobsConfig = configSection('jobs', 'jobs', JobsSchema)

declare module '../config/schema.ts' {
  interface DictumConfig {
    jobs: Static<typeof JobsSchema>
  }
}
