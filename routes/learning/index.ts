/**
 * Learning from corrections (extensions): POST /v1/history/{id}/correction, and the suggestions it makes
 * under /v1/dictionary/suggestions (list, replay, accept, dismiss). HTTP only: learning/ does the work.
 */
import { asClass } from 'awilix/browser'
import { HistoryIdParamsSchema } from '../../history/schemas.ts'
import { clientGoneSignal } from '../../http/client-signal.ts'
import { jsonBody } from '../../http/route-doc.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'
import { learningErrors } from '../../learning/errors.ts'
import { learningMigrations } from '../../learning/migrations.ts'
import {
  CorrectionBodySchema,
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
      config: {
        jsonError: learningErrors.INVALID_CORRECTION_JSON,
        doc: {
          summary: 'Store the text the user kept; answers the entry and the suggestions the correction made.',
          body: jsonBody(CorrectionBodySchema),
          errors: [400, 401, 403, 404, 413],
        },
      },
    },
    async (request) => learning.correct(request.params.id, request.body),
  )

  app.get(
    '/dictionary/suggestions',
    {
      schema: { response: { 200: SuggestionListSchema } },
      config: {
        doc: {
          summary: 'Suggestions learned from corrections, with their replay figures.',
          errors: [401, 403],
        },
      },
    },
    async () => learning.list(),
  )

  const one = (summary: string, errors: number[]) => ({
    schema: { params: SuggestionParamsSchema, response: { 200: SuggestionSchema } },
    config: { doc: { summary, errors } },
  })
  app.post<{ Params: { id: string } }>(
    '/dictionary/suggestions/:id/replay',
    one(
      'Transcribe the kept recordings again with the suggestion; answers it with `replay`.',
      [401, 403, 404, 409, 500, 502, 503, 504],
    ),
    async (request, reply) => learning.replay(request.params.id, clientGoneSignal(reply)),
  )
  app.post<{ Params: { id: string } }>(
    '/dictionary/suggestions/:id/accept',
    one(
      'Add the suggestion to the dictionary (one transaction); answers it accepted.',
      [400, 401, 403, 404, 409],
    ),
    async (request) => learning.accept(request.params.id),
  )
  app.post<{ Params: { id: string } }>(
    '/dictionary/suggestions/:id/dismiss',
    one('Dismiss the suggestion; answers it.', [401, 403, 404, 409]),
    async (request) => learning.dismiss(request.params.id),
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
  errors: learningErrors.table,
  dependencies: ['history', 'dictionary', 'transcribe'],
  services: { learning: asClass(LearningService).singleton() },
  migrations: learningMigrations,
  routes: { prefix: '/v1', plugin: learningRoutes },
  close: (cradle) => cradle.learning.idle(),
}
