/**
 * The HTTP shell's config sections: `api` (the listener, its guard, body limits and time limits) and
 * `log` (the logger and the access log).
 * Composed with the other sections by server/config-schema.ts.
 */
import { type Static, Type } from '@sinclair/typebox'
import { configSection } from '../config/schema.ts'

export const ApiSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Serve the local HTTP API.' }),
    host: Type.String({ default: '127.0.0.1', minLength: 1, description: 'Address to bind.' }),
    port: Type.Integer({
      minimum: 0,
      maximum: 65535,
      default: 47733,
      description: 'TCP port (0: any free).',
    }),
    token: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'When set, every request needs `Authorization: Bearer <token>`.',
    }),
    allowedOrigins: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'Browser origins (besides loopback ones) allowed to call the API.',
    }),
    allowedHosts: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        'Host header names (besides loopback ones) accepted, e.g. a LAN name when binding 0.0.0.0.',
    }),
    bodyLimit: Type.Integer({
      minimum: 1024,
      default: 1_048_576,
      description: 'Body limit (bytes), non-audio.',
    }),
    audioBodyLimit: Type.Integer({
      minimum: 1024,
      default: 25_000_000,
      description: 'Request body limit (bytes) of audio uploads such as /v1/transcribe.',
    }),
    requestTimeoutMs: Type.Integer({
      minimum: 1000,
      default: 60_000,
      description:
        'A request (headers and body) not received within this time is answered 408 and its connection closed.',
    }),
    maxConcurrentUploads: Type.Integer({
      minimum: 1,
      default: 16,
      description: 'Audio uploads received at once; more are answered 503 with Retry-After.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const LogSchema = Type.Object(
  {
    level: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
      { default: 'info' },
    ),
    requests: Type.Boolean({
      default: true,
      description: 'Log one line per request (method, path, status, time) at info; applied live.',
    }),
  },
  { additionalProperties: false, default: {} },
)

export const apiConfig = configSection('http', 'api', ApiSchema)
export const logConfig = configSection('http', 'log', LogSchema)

declare module '../config/schema.ts' {
  interface DictumConfig {
    api: Static<typeof ApiSchema>
    log: Static<typeof LogSchema>
  }
}
