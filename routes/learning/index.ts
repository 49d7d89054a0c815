/**
 * Learning from corrections (extensions): POST /v1/history/{id}/correction, and the suggestions it makes
 * under /v1/dictionary/suggestions (list, replay, accept, dismiss). HTTP only: learning/ does the work.
 */
import { asClass } from 'awilix'
import { HistoryIdParamsSchema } from '../../history/schemas.ts'
import { clientGoneSignal } from '../../http/client-signal.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'
import { learningMigrations } from '../../learning/migrations.ts'
import {
  CorrectionResultSchema,
  SuggestionListSchema,
  SuggestionParamsSchema,
  SuggestionSchema,
} from '../../learning/schemas.ts'
import { LearningService } from '../../learning/service.ts'

export const learningRoutes = routePlugin('learning', async (app) => {
  const { learning } = app.dictum
  // The body is checked by the service (INVALID_CORRECTION); its schema is in the OpenAPI table.
  app.post<{ Params: { id: string } }>(
    '/history/:id/correction',
    {
      schema: { params: HistoryIdParamsSchema, response: { 200: CorrectionResultSchema } },
      config: { jsonError: 'INVALID_CORRECTION_JSON' },
    },
    async (request) => learning.correct(request.params.id, request.body),
  )

  app.get('/dictionary/suggestions', { schema: { response: { 200: SuggestionListSchema } } }, async () =>
    learning.list(),
  )

  const one = { schema: { params: SuggestionParamsSchema, response: { 200: SuggestionSchema } } }
  app.post<{ Params: { id: string } }>('/dictionary/suggestions/:id/replay', one, async (request, reply) =>
    learning.replay(request.params.id, clientGoneSignal(reply)),
  )
  app.post<{ Params: { id: string } }>('/dictionary/suggestions/:id/accept', one, async (request) =>
    learning.accept(request.params.id),
  )
  app.post<{ Params: { id: string } }>('/dictionary/suggestions/:id/dismiss', one, async (request) =>
    learning.dismiss(request.params.id),
  )
})

declare module '../../kernel/container.ts' {
  interface Cradle {
    learning: LearningService
  }
}

/** Corrections, the suggestions learned from them and their replay: the table, the service, the routes. */
export const learningFeature: Feature = {
  name: 'learning',
  dependencies: ['history', 'dictionary', 'transcribe'],
  services: { learning: asClass(LearningService).singleton() },
  migrations: learningMigrations,
  routes: { prefix: '/v1', plugin: learningRoutes },
  close: (cradle) => cradle.learning.idle(),
}
