/**
 * GET/POST /v1/dictionary/replacements and /v1/dictionary/custom-words (spec 4.1–4.4), and (extension)
 * PATCH/DELETE of one entry by id under each: `/replacements/:id`, `/custom-words/:id`. Every write answers
 * the full updated list.
 */

import { type TSchema, Type } from '@sinclair/typebox'
import { asClass } from 'awilix/browser'
import { dictionaryErrors } from '../../dictionary/errors.ts'
import { dictionaryMigrations } from '../../dictionary/migrations.ts'
import { CustomWordListSchema, EntryParamsSchema, ReplacementListSchema } from '../../dictionary/schemas.ts'
import { DictionaryService } from '../../dictionary/service.ts'
import { jsonBody } from '../../http/route-doc.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'

// The bodies as the OpenAPI document shows them (the service parses them, with the contract's messages).
const Replacement = Type.Object({
  id: Type.Optional(Type.String({ format: 'uuid' })),
  triggers: Type.Array(Type.String(), { minItems: 1 }),
  replacement: Type.String(),
})
const CustomWord = Type.Object({
  id: Type.Optional(Type.String({ format: 'uuid' })),
  text: Type.String(),
  weight: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 100 }), Type.Null()])),
  aliases: Type.Optional(Type.Array(Type.String())),
})
const writeBody = (entry: TSchema) =>
  jsonBody(
    Type.Union([
      entry,
      Type.Object({
        mode: Type.Optional(Type.Union([Type.Literal('append'), Type.Literal('replace')])),
        entries: Type.Array(entry),
      }),
    ]),
  )
const patchBody = (entry: TSchema) => jsonBody(Type.Partial(Type.Omit(entry, ['id'])))

export const dictionaryRoutes = routePlugin('dictionary', async (app) => {
  const { dictionary } = app.dictum
  const replacements = { schema: { response: { 200: ReplacementListSchema } } }
  const words = { schema: { response: { 200: CustomWordListSchema } } }
  const listed = (summary: string) => ({ config: { doc: { summary, errors: [401, 403] } } })

  // GET bodies are pre-serialised strings (see DictionaryService.listJson), which Fastify sends as they are:
  // the schemas document them, as they do the POST replies.
  app.get(
    '/replacements',
    { ...replacements, ...listed('List replacement rules.') },
    async (_request, reply) =>
      reply
        .type('application/json; charset=utf-8')

        .send(dictionary.listJson('rules') as never),
  )
  app.post(
    '/replacements',
    {
      ...replacements,
      config: {
        jsonError: dictionaryErrors.INVALID_REPLACEMENTS_JSON,
        doc: {
          summary: 'Add, update or replace replacement rules (one transaction).',
          body: writeBody(Replacement),
          errors: [400, 401, 403, 413],
        },
      },
    },
    async (request) => dictionary.writeReplacements(request.body),
  )
  app.get('/custom-words', { ...words, ...listed('List custom words.') }, async (_request, reply) =>
    reply
      .type('application/json; charset=utf-8')

      .send(dictionary.listJson('words') as never),
  )
  app.post(
    '/custom-words',
    {
      ...words,
      config: {
        jsonError: dictionaryErrors.INVALID_CUSTOM_WORDS_JSON,
        doc: {
          summary: 'Add, update or replace custom words (one transaction).',
          body: writeBody(CustomWord),
          errors: [400, 401, 403, 413],
        },
      },
    },
    async (request) => dictionary.writeCustomWords(request.body),
  )

  // One entry by id. Bodies are parsed by the service (with the bulk routes' messages); their schemas are
  // documented by the route's doc, as the POST bodies are.
  const byId = <R>(response: R) => ({ schema: { params: EntryParamsSchema, response } })
  app.patch<{ Params: { id: string } }>(
    '/replacements/:id',
    {
      ...byId(replacements.schema.response),
      config: {
        jsonError: dictionaryErrors.INVALID_REPLACEMENTS_JSON,
        doc: {
          summary: 'Edit one replacement rule (omitted fields keep their value); answers the full list.',
          body: patchBody(Replacement),
          errors: [400, 401, 403, 404, 413],
        },
      },
    },
    async (request) => dictionary.patchReplacement(request.params.id, request.body),
  )
  app.delete<{ Params: { id: string } }>(
    '/replacements/:id',
    {
      ...byId(replacements.schema.response),
      config: {
        doc: { summary: 'Delete one replacement rule; answers the full list.', errors: [401, 403, 404] },
      },
    },
    async (request) => dictionary.deleteReplacement(request.params.id),
  )
  app.patch<{ Params: { id: string } }>(
    '/custom-words/:id',
    {
      ...byId(words.schema.response),
      config: {
        jsonError: dictionaryErrors.INVALID_CUSTOM_WORDS_JSON,
        doc: {
          summary: 'Edit one custom word (omitted fields keep their value); answers the full list.',
          body: patchBody(CustomWord),
          errors: [400, 401, 403, 404, 413],
        },
      },
    },
    async (request) => dictionary.patchCustomWord(request.params.id, request.body),
  )
  app.delete<{ Params: { id: string } }>(
    '/custom-words/:id',
    {
      ...byId(words.schema.response),
      config: { doc: { summary: 'Delete one custom word; answers the full list.', errors: [401, 403, 404] } },
    },
    async (request) => dictionary.deleteCustomWord(request.params.id),
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
  errors: dictionaryErrors.table,
  services: { dictionary: asClass(DictionaryService).singleton() },
  migrations: dictionaryMigrations,
  routes: { prefix: '/v1/dictionary', plugin: dictionaryRoutes },
}
