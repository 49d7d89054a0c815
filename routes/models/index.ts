/**
 * `POST /v1/models/{id}/pull` (extension): installs a catalog model as `dictum models pull` does, from the
 * catalog URL or `models.mirror`. A client that accepts `text/event-stream` gets the pull as server-sent
 * events (`start`, `progress` with the phase and bytes, then `done` or `error`: a service that stops ends each
 * pull with an `error` MODEL_PULL_INTERRUPTED); any other gets one JSON
 * answer when it is over. A second pull of a model joins the one running. A client that goes away leaves
 * the pull; the last one leaving stops it (its partial download stays, the next pull resumes it).
 *
 * A route group of its own, in dictum's error shape (the model list beside it, `/v1/models`, is OpenAI's).
 */
import { PassThrough } from 'node:stream'
import { type Static, Type } from '@sinclair/typebox'
import { errorBody } from '../../errors/catalogue.ts'
import { clientGoneSignal } from '../../http/client-signal.ts'
import { toDictumError } from '../../http/error-handler.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'
import type { ModelManager } from '../../models/manager.ts'
import { diskUsage } from '../../models/stale.ts'

export const PullResultSchema = Type.Object({
  id: Type.String(),
  installed: Type.Literal(true),
  path: Type.String({ description: 'Where in the data dir: models/<id>.' }),
  sizeOnDisk: Type.Integer(),
  joined: Type.Boolean({ description: 'This request joined a pull of the model already running.' }),
  alreadyInstalled: Type.Boolean({ description: 'Nothing was pulled: it was installed (no force).' }),
})
export type PullResult = Static<typeof PullResultSchema>

const PullQuerySchema = Type.Object({
  force: Type.Optional(Type.Unknown({ description: 'true: pull again even when installed (repairs it).' })),
})

async function result(
  models: ModelManager,
  id: string,
  how: Omit<PullResult, 'id' | 'installed' | 'path' | 'sizeOnDisk'>,
) {
  // The path relative to the data dir: the absolute one names the user's home.
  return {
    id,
    installed: true as const,
    path: `models/${id}`,
    sizeOnDisk: await diskUsage(models.pathOf(id)),
    ...how,
  }
}

/** One server-sent event. */
function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
}

export const modelPullRoutes = routePlugin('model-pull', async (app) => {
  const { models } = app.dictum
  app.post<{ Params: { id: string }; Querystring: Static<typeof PullQuerySchema> }>(
    '/models/:id/pull',
    {
      schema: {
        params: Type.Object({ id: Type.String() }),
        querystring: PullQuerySchema,
        response: { 200: PullResultSchema },
      },
      config: {
        doc: {
          summary:
            'Download, check and install a catalog model; server-sent events of its progress with Accept: text/event-stream.',
          content: {
            description:
              'JSON when the pull is over; or (Accept: text/event-stream) the events start, progress (phase, receivedBytes, totalBytes, bytesPerSecond, etaSeconds), then done (this JSON) or error (an error body with its status).',
            content: {
              'application/json': { schema: PullResultSchema },
              'text/event-stream': { schema: Type.String() },
            },
          },
          errors: [401, 403, 404, 502, 503],
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params
      const entry = models.get(id) // 404 MODEL_NOT_FOUND before anything is sent
      const force = [request.query.force].flat()[0] === 'true'
      const joined = models.isPulling(id)
      const skip = !force && !joined && (await models.isInstalled(id))
      const signal = clientGoneSignal(reply)
      if (!/\btext\/event-stream\b/i.test(request.headers.accept ?? '')) {
        if (skip) return result(models, id, { joined: false, alreadyInstalled: true })
        await models.pull(id, { signal })
        return result(models, id, { joined, alreadyInstalled: false })
      }

      const stream = new PassThrough()
      const send = (name: string, data: unknown) => {
        if (!stream.destroyed && !stream.writableEnded) stream.write(event(name, data))
      }
      send('start', { id, displayName: entry.displayName, sizeBytes: entry.sizeBytes, joined })
      const run = async () => {
        try {
          if (!skip) await models.pull(id, { signal, onProgress: (progress) => send('progress', progress) })
          send('done', await result(models, id, { joined, alreadyInstalled: skip }))
        } catch (error) {
          if (signal.aborted) return
          const failure = toDictumError(error as Error, request)
          if (failure.statusCode >= 500 && failure.code !== 'MODEL_PULL_INTERRUPTED')
            request.log.error({ err: error, model: id }, 'model pull failed')
          send('error', { ...errorBody(failure), status: failure.statusCode })
        } finally {
          stream.end()
        }
      }
      void run()
      return reply
        .type('text/event-stream; charset=utf-8')
        .header('Cache-Control', 'no-store')
        .header('X-Accel-Buffering', 'no')
        .send(stream)
    },
  )
})

/** The pull route; a feature of its own so it registers after the OpenAPI document (server/app.ts). */
export const modelPullFeature: Feature = {
  name: 'model-pull',
  dependencies: ['models'],
  routes: { prefix: '/v1', plugin: modelPullRoutes },
}
