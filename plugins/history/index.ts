/** GET /v1/history (spec 4.6): newest first, `limit` clamped to 1..1000, default 100. */
import { routePlugin } from '../../kernel/route-plugin.ts'
import { HistoryListSchema, HistoryQuerySchema } from './schemas.ts'
import { parseHistoryLimit } from './service.ts'

export const historyRoutes = routePlugin('history', async (app) => {
  const { history } = app.dictum
  app.get(
    '/history',
    { schema: { querystring: HistoryQuerySchema, response: { 200: HistoryListSchema } } },
    async (request) => history.list(parseHistoryLimit(request.query.limit)),
  )
})
