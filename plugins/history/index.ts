/** GET /v1/history (spec 4.6): newest first, `limit` clamped to 1..1000, default 100. */

import { asClass, asFunction } from 'awilix'
import type { Feature } from '../../kernel/container.ts'
import { routePlugin } from '../../kernel/route-plugin.ts'
import { historyMigrations } from './migrations.ts'
import { HistoryListSchema, HistoryQuerySchema } from './schemas.ts'
import { HistoryService, type HistorySettings, parseHistoryLimit } from './service.ts'

export const historyRoutes = routePlugin('history', async (app) => {
  const { history } = app.dictum
  app.get(
    '/history',
    { schema: { querystring: HistoryQuerySchema, response: { 200: HistoryListSchema } } },
    async (request) => history.list(parseHistoryLimit(request.query.limit)),
  )
})

declare module '../../kernel/container.ts' {
  interface Cradle {
    history: HistoryService
    historySettings: () => HistorySettings
  }
}

/** Dictation history: its table, the service every transcription route stores through, GET /v1/history. */
export const historyFeature: Feature = {
  name: 'history',
  services: {
    historySettings: asFunction(
      ({ configStore }) =>
        () =>
          configStore.current.history,
    ).singleton(),
    history: asClass(HistoryService).singleton(),
  },
  migrations: historyMigrations,
  routes: { prefix: '/v1', plugin: historyRoutes },
}
