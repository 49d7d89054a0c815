/**
 * GET /v1/history (spec 4.6): newest first, `limit` clamped to 1..1000, default 100; and (extensions) its
 * search, filters and cursor paging, DELETE of one entry or (confirmed) of all, and the streamed export.
 */

import { Readable } from 'node:stream'
import { Type } from '@sinclair/typebox'
import { asClass, asFunction } from 'awilix/browser'
import { RECORDING_FORMAT } from '../../audio/recording-encoder.ts'
import { historyErrors } from '../../history/errors.ts'
import { EXPORT_FORMATS, EXPORT_WRITERS, type ExportFormat } from '../../history/export.ts'
import { historyMigrations } from '../../history/migrations.ts'
import { parseCursor, parseHistoryFilter } from '../../history/query.ts'
import {
  HistoryClearQuerySchema,
  HistoryDeletedSchema,
  type HistoryEntry,
  HistoryEntrySchema,
  HistoryExportQuerySchema,
  HistoryIdParamsSchema,
  HistoryListSchema,
  HistoryQuerySchema,
} from '../../history/schemas.ts'
import { HistoryService, type HistorySettings, parseHistoryLimit } from '../../history/service.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'

type Query = Record<string, unknown>

export const historyRoutes = routePlugin('history', async (app) => {
  const { history } = app.dictum
  const withRecording = (entry: HistoryEntry) => ({
    ...entry,
    audio: entry.hasAudio ? history.audio(entry.id).toString('base64') : null,
  })
  app.get(
    '/history',
    {
      schema: { querystring: HistoryQuerySchema, response: { 200: HistoryListSchema } },
      config: {
        doc: {
          summary: 'Recent dictations, newest first; search, filters and cursor paging (extensions).',
          errors: [400, 401, 403],
        },
      },
    },
    async (request) => {
      const query = request.query as Query
      const filter = parseHistoryFilter(query)
      return history.query(filter, parseHistoryLimit(query.limit), parseCursor(query.cursor))
    },
  )

  app.delete(
    '/history',
    {
      schema: { querystring: HistoryClearQuerySchema, response: { 200: HistoryDeletedSchema } },
      config: { doc: { summary: 'Delete the whole history: needs ?confirm=true.', errors: [400, 401, 403] } },
    },
    async (request) => {
      const confirm = (request.query as Query).confirm
      if ((Array.isArray(confirm) ? confirm[0] : confirm) !== 'true')
        throw historyErrors.HISTORY_CLEAR_UNCONFIRMED()
      return { deleted: await history.clear() }
    },
  )

  app.delete<{ Params: { id: string } }>(
    '/history/:id',
    {
      schema: { params: HistoryIdParamsSchema, response: { 200: HistoryDeletedSchema } },
      config: { doc: { summary: 'Delete one history entry.', errors: [401, 403, 404] } },
    },
    async (request) => {
      await history.remove(request.params.id)
      return { deleted: 1 }
    },
  )

  app.get<{ Params: { id: string } }>(
    '/history/:id/audio',
    {
      schema: { params: HistoryIdParamsSchema },
      config: {
        doc: {
          summary: "Play back the entry's kept recording (FLAC); 404 when none is kept.",
          content: {
            description: 'The recording, 16 kHz mono FLAC.',
            content: { 'audio/flac': { schema: Type.String({ format: 'binary' }) } },
          },
          errors: [401, 403, 404],
        },
      },
    },
    async (request, reply) => {
      const data = history.audio(request.params.id)
      return reply
        .type(RECORDING_FORMAT.contentType)
        .header(
          'Content-Disposition',
          `inline; filename="${request.params.id}.${RECORDING_FORMAT.extension}"`,
        )
        .header('Cache-Control', 'no-store')
        .send(data)
    },
  )

  app.get(
    '/history/export',
    {
      schema: { querystring: HistoryExportQuerySchema },
      config: {
        doc: {
          summary: 'Download the history (the same filters as the list) as JSON, CSV or Markdown, streamed.',
          content: {
            description: 'An attachment (Content-Disposition) in the requested format.',
            content: {
              'application/json': {
                schema: Type.Object({
                  exportedAt: Type.String({ format: 'date-time' }),
                  items: Type.Array(HistoryEntrySchema),
                }),
              },
              'text/csv': { schema: Type.String() },
              'text/markdown': { schema: Type.String() },
            },
          },
          errors: [400, 401, 403],
        },
      },
    },
    async (request, reply) => {
      const query = request.query as Query
      const format = exportFormat(query.format)
      const withAudio = exportAudio(query.audio, format)
      const filter = parseHistoryFilter(query)
      const writer = EXPORT_WRITERS[format]
      const exportedAt = new Date()
      const name = `dictum-history-${exportedAt.toISOString().slice(0, 10)}.${writer.extension}`
      function* text() {
        yield writer.start(exportedAt)
        let index = 0
        for (const page of history.pages(filter)) {
          yield page.map((entry) => writer.entry(withAudio ? withRecording(entry) : entry, index++)).join('')
        }
        yield writer.end()
      }
      return reply
        .type(writer.contentType)
        .header('Content-Disposition', `attachment; filename="${name}"`)
        .header('Cache-Control', 'no-store')
        .send(Readable.from(text(), { objectMode: false }))
    },
  )
})

/** `audio=true` (JSON only): each entry carries its recording, base64 FLAC (null when none is kept). */
function exportAudio(raw: unknown, format: ExportFormat): boolean {
  const value = Array.isArray(raw) ? raw[0] : raw
  if (value === undefined || value === '' || value === 'false') return false
  if (value !== 'true') throw historyErrors.INVALID_HISTORY_QUERY('audio must be true or false.')
  if (format !== 'json') throw historyErrors.INVALID_HISTORY_QUERY('audio=true needs format=json.')
  return true
}

function exportFormat(raw: unknown): ExportFormat {
  const value = Array.isArray(raw) ? raw[0] : raw
  if (value === undefined || value === '') return 'json'
  if (typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value))
    return value as ExportFormat
  throw historyErrors.INVALID_HISTORY_QUERY(`format must be ${EXPORT_FORMATS.join(', ')}.`)
}

declare module '../../kernel/container.ts' {
  interface Cradle {
    history: HistoryService
    historySettings: () => HistorySettings
  }
}

/** Dictation history: its table, the service every transcription route stores through, its routes. */
export const historyFeature: Feature = {
  name: 'history',
  errors: historyErrors.table,
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
