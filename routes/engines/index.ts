/**
 * GET /v1/engines (extension): every engine with its status, capabilities, and which one is active; and
 * whether they are served over Wyoming (refused, and why, when `api.token` is set).
 */

import { wyomingAccess } from '../../config/wyoming-access.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'
import { EngineListSchema } from './schemas.ts'

export const enginesRoutes = routePlugin('engines', async (app) => {
  const { engines, configStore } = app.dictum
  // The selected engine loads once listening (speech.preload), in the background: not awaited by the
  // warm-up, whose later tasks and a shutdown need not wait for a model load (kernel/registry.ts).
  app.warmUp.add('the selected engine (speech.preload)', async () => {
    void engines.preload()
  })
  const doc = { summary: 'Speech engines, their status and capabilities.', errors: [401, 403] }
  app.get('/engines', { schema: { response: { 200: EngineListSchema } }, config: { doc } }, async () => {
    const items = await engines.list()
    return {
      active: engines.activeId,
      count: items.length,
      items,
      wyoming: wyomingAccess(configStore.current),
    }
  })
})

export const enginesFeature: Feature = { name: 'engines', routes: { prefix: '/v1', plugin: enginesRoutes } }
