/** GET /v1/health (spec 4.8): liveness and version. */
import { Type } from '@sinclair/typebox'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'
import { readVersion } from '../../lib/version.ts'

export const HealthSchema = Type.Object({ status: Type.Literal('ok'), version: Type.String() })

export const healthRoutes = routePlugin('health', async (app) => {
  const version = readVersion()
  app.get(
    '/health',
    {
      schema: { response: { 200: HealthSchema } },
      config: {
        doc: { summary: 'Liveness and version (answered without the token).', errors: [403], public: true },
      },
    },
    async () => ({
      status: 'ok' as const,
      version,
    }),
  )
})

export const healthFeature: Feature = { name: 'health', routes: { prefix: '/v1', plugin: healthRoutes } }
