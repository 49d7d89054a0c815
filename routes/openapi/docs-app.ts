/**
 * The app that makes the OpenAPI document and serves Swagger UI: @fastify/swagger and @fastify/swagger-ui on
 * an app of their own that never listens, given the routes the API app recorded as it registered them
 * (routes/openapi/index.ts). Both libraries (with yaml, @fastify/static and their ~150 modules) load when it
 * is first built, so `dictum serve` does not load them before it answers: it is built in the background once
 * the API listens, or by the first request that needs it.
 */
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify'
import { lazySchemaCompilers } from '../../http/lazy-schema-compilers.ts'
import { readVersion } from '../../lib/version.ts'

/** dictum's error body: `error` and a stable `code`, sometimes more (e.g. `fix`). */
const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, in a sentence.' }),
    code: Type.String({ description: 'Stable error code (errors/catalogue.ts catalogue).' }),
    fix: Type.Optional(Type.String({ description: 'What to do about it, when known.' })),
  },
  { additionalProperties: true },
)

/** OpenAI's error body, used by the OpenAI-compatible routes. */
const OpenAiErrorBody = Type.Object({
  error: Type.Object(
    {
      message: Type.String(),
      type: Type.String(),
      param: Type.Union([Type.String(), Type.Null()]),
      code: Type.Union([Type.String(), Type.Null()]),
    },
    { additionalProperties: true },
  ),
})

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request: the body, a field or a limit (the message says which).',
  401: 'Unauthorized: `api.token` is set and the bearer token is missing or wrong.',
  403: 'Forbidden: the Host header is not a loopback name, or the Origin is not allowed.',
  404: 'Not found.',
  409: 'Conflict: the config file has errors (or is not JSON); fix it first.',
  413: 'Request too large (decided from Content-Length before reading, or while reading).',
  415: 'Unsupported content type.',
  500: 'The speech engine crashed or failed, or an internal error.',
  502: 'A remote server dictum called failed (a model download: its server, or a checksum that does not match).',
  503: 'Unavailable: the selected engine or model is not installed (with `fix`), ffmpeg missing, busy.',
  504: 'The speech engine timed out.',
}

/**
 * Builds the docs app over the API's routes as recorded (their method, URL, schemas and `config.doc`), with
 * Swagger UI at `docsPrefix`: the same input @fastify/swagger read from the API app itself, so the document
 * is what it made there.
 */
export async function buildDocsApp(
  routes: readonly RouteOptions[],
  docsPrefix: string,
): Promise<FastifyInstance> {
  // No schema is ever compiled here: the recorded routes only describe themselves, and are never called.
  const docs = Fastify({
    logger: false,
    exposeHeadRoutes: false,
    schemaController: { compilersFactory: lazySchemaCompilers() as never },
  })
  await docs.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'dictum local API',
        version: readVersion(),
        description:
          'Local dictation service. Unknown paths answer 404 `Route not found.`; a known path with another method 405 `Method not allowed.` with an `Allow` header. See docs/api.md.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: 'http://127.0.0.1:47733' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'When api.token is set.' },
        },
      },
      security: [{ bearer: [] }],
    },
    transform: ({ schema, url, route }) => {
      const doc = route.config?.doc
      if (!doc) return { schema, url }
      const response: Record<string, unknown> = { ...((schema?.response as object) ?? {}) }
      const ok = (response[200] ?? doc.success) as Record<string, unknown> | undefined
      if (doc.textResponses && ok) {
        response[200] = {
          description: 'The transcript in the requested response_format.',
          content: {
            'application/json': { schema: ok },
            ...Object.fromEntries(doc.textResponses.map((type) => [type, { schema: Type.String() }])),
          },
        }
      }
      if (doc.content) response[200] = doc.content
      for (const status of doc.errors) {
        if (response[status]) continue
        const body = doc.openAiErrors && status !== 401 && status !== 403 ? OpenAiErrorBody : ErrorBody
        response[status] = { ...body, description: STATUS_TEXT[status] }
      }
      return {
        schema: {
          ...schema,
          summary: doc.summary,
          ...(doc.body ? { body: doc.body } : {}),
          ...(doc.public ? { security: [] } : {}),
          response,
        },
        url,
      }
    },
  })
  await docs.register(swaggerUi, { routePrefix: docsPrefix, staticCSP: true })
  for (const route of routes) {
    docs.route({
      method: route.method,
      url: route.url,
      ...(route.schema ? { schema: route.schema } : {}),
      ...(route.config ? { config: route.config } : {}),
      handler: notCalled,
    })
  }
  await docs.ready()
  return docs
}

async function notCalled(): Promise<never> {
  throw new Error('the docs app only describes the API routes')
}
