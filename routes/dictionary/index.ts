/**
 * GET/POST /v1/dictionary/replacements and /v1/dictionary/custom-words (spec 4.1–4.4), and (extension)
 * PATCH/DELETE of one entry by id under each: `/replacements/:id`, `/custom-words/:id`. Every write answers
 * the full updated list.
 */

import { asClass } from 'awilix'
import { dictionaryMigrations } from '../../dictionary/migrations.ts'
import { CustomWordListSchema, EntryParamsSchema, ReplacementListSchema } from '../../dictionary/schemas.ts'
import { DictionaryService } from '../../dictionary/service.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'

export const dictionaryRoutes = routePlugin('dictionary', async (app) => {
  const { dictionary } = app.dictum
  const replacements = { schema: { response: { 200: ReplacementListSchema } } }
  const words = { schema: { response: { 200: CustomWordListSchema } } }

  // GET bodies are pre-serialised strings (see DictionaryService.listJson), which Fastify sends as they are:
  // the schemas document them, as they do the POST replies.
  app.get('/replacements', replacements, async (_request, reply) =>
    reply
      .type('application/json; charset=utf-8')

      .send(dictionary.listJson('rules') as never),
  )
  app.post(
    '/replacements',
    { ...replacements, config: { jsonError: 'INVALID_REPLACEMENTS_JSON' } },
    async (request) => dictionary.writeReplacements(request.body),
  )
  app.get('/custom-words', words, async (_request, reply) =>
    reply
      .type('application/json; charset=utf-8')

      .send(dictionary.listJson('words') as never),
  )
  app.post(
    '/custom-words',
    { ...words, config: { jsonError: 'INVALID_CUSTOM_WORDS_JSON' } },
    async (request) => dictionary.writeCustomWords(request.body),
  )

  // One entry by id. Bodies are parsed by the service (with the bulk routes' messages); their schemas are
  // documented in the OpenAPI table (routes/openapi), as the POST bodies are.
  const byId = <R>(response: R) => ({ schema: { params: EntryParamsSchema, response } })
  app.patch<{ Params: { id: string } }>(
    '/replacements/:id',
    { ...byId(replacements.schema.response), config: { jsonError: 'INVALID_REPLACEMENTS_JSON' } },
    async (request) => dictionary.patchReplacement(request.params.id, request.body),
  )
  app.delete<{ Params: { id: string } }>(
    '/replacements/:id',
    byId(replacements.schema.response),
    async (request) => dictionary.deleteReplacement(request.params.id),
  )
  app.patch<{ Params: { id: string } }>(
    '/custom-words/:id',
    { ...byId(words.schema.response), config: { jsonError: 'INVALID_CUSTOM_WORDS_JSON' } },
    async (request) => dictionary.patchCustomWord(request.params.id, request.body),
  )
  app.delete<{ Params: { id: string } }>('/custom-words/:id', byId(words.schema.response), async (request) =>
    dictionary.deleteCustomWord(request.params.id),
  )
})

declare module '../../kernel/container.ts' {
  interface Cradle {
    dictionary: DictionaryService
  }
}

/** Replacement rules and custom words: their tables, the service transcription applies, the routes. */
export const dictionaryFeature: Feature = {
  name: 'dictionary',
  services: { dictionary: asClass(DictionaryService).singleton() },
  migrations: dictionaryMigrations,
  routes: { prefix: '/v1/dictionary', plugin: dictionaryRoutes },
}
