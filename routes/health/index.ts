/** GET /v1/health (spec 4.8): liveness and version. */
import { Type } from '@sinclair/typebox'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'
import { readVersion } from '../../lib/version.ts'

export const HealthSchema = Type.Object({ status: Type.Literal('ok'), version: Type.String() })

export const healthRoutes = routePlugin('health', async (app) => {
  // Serialised once, here: the answer never changes, and the first health check after start-up (what a
  // supervisor waits for) then needs no schema compiled (http/lazy-schema-compilers.ts).
  const body = JSON.stringify({ status: 'ok', version: readVersion() })
  app.get(
    '/health',
    {
      schema: { response: { 200: HealthSchema } },
      config: {
        doc: { summary: 'Liveness and version (answered without the token).', errors: [403], public: true },
      },
    },
    async (_request, reply) => reply.type('application/json; charset=utf-8').send(body as never),
  )
})

export const healthFeature: Feature = { name: 'health', routes: { prefix: '/v1', plugin: healthRoutes } }
