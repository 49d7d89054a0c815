/** GET /v1/engines (extension): every engine with its status, capabilities, and which one is active. */
import { Type } from '@sinclair/typebox'
import { routePlugin } from '../../kernel/route-plugin.ts'

const Capabilities = Type.Object({
  customWords: Type.Boolean(),
  wordTimestamps: Type.Boolean(),
  segmentTimestamps: Type.Boolean(),
  languages: Type.Array(Type.String()),
  maxAudioSeconds: Type.Union([Type.Number(), Type.Null()]),
})

export const EngineStatusSchema = Type.Object({
  id: Type.String(),
  displayName: Type.String(),
  description: Type.String(),
  status: Type.Union(['discovered', 'loading', 'ready', 'unavailable', 'failed'].map((s) => Type.Literal(s))),
  reason: Type.Union([Type.String(), Type.Null()]),
  fix: Type.Union([Type.String(), Type.Null()]),
  capabilities: Capabilities,
  active: Type.Boolean(),
  builtIn: Type.Boolean(),
})

export const EngineListSchema = Type.Object({
  active: Type.String(),
  count: Type.Integer(),
  items: Type.Array(EngineStatusSchema),
})

export const enginesRoutes = routePlugin('engines', async (app) => {
  const { engines } = app.dictum
  app.get('/engines', { schema: { response: { 200: EngineListSchema } } }, async () => {
    const items = await engines.list()
    return { active: engines.activeId, count: items.length, items }
  })
})
