/**
 * POST /v1/dictate (extension, docs/api-decisions.md): the three input modes of /v1/transcribe plus `appName` and
 * `windowTitle` (JSON fields, or X-App-Name / X-Window-Title headers) -> the history entry, with `stored` and
 * `storeError`.
 */
import { Type } from '@sinclair/typebox'
import { asClass } from 'awilix/browser'
import { DictationService } from '../../dictation/service.ts'
import { errors } from '../../errors/catalogue.ts'
import { HistoryEntrySchema } from '../../history/schemas.ts'
import { audioFromRequest, fieldOrHeader } from '../../http/audio-request.ts'
import { clientGoneSignal } from '../../http/client-signal.ts'
import { useShallowJson } from '../../http/json-body/parser.ts'
import { audioBody } from '../../http/route-doc.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'
import { isWellFormedText } from '../../lib/validate.ts'

export const DictationResultSchema = Type.Composite([
  HistoryEntrySchema,
  Type.Object({
    stored: Type.Boolean(),
    storeError: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why storing in history failed (e.g. the database is busy or the disk is full): the text is still returned. Null when storing did not fail.',
    }),
  }),
])

/**
 * Longest `appName` / `windowTitle` stored (characters): window titles are short, and unbounded ones grew the
 * database by megabytes a request until `GET /v1/history` failed.
 */
export const MAX_CONTEXT_LENGTH = 1024

function boundedText(value: string, field: string): string {
  if (value.length > MAX_CONTEXT_LENGTH)
    throw errors.INVALID_REQUEST(`${field} is longer than ${MAX_CONTEXT_LENGTH} characters.`, {
      extra: { field },
    })
  if (!isWellFormedText(value))
    throw errors.INVALID_REQUEST(`${field} is not valid Unicode text (a lone surrogate).`, {
      extra: { field },
    })
  return value
}

export const dictateRoutes = routePlugin('dictate', async (app) => {
  // The body is a few flat fields and may be 25 MB (base64 audio): refuse deep nesting before parsing.
  useShallowJson(app, errors.INVALID_AUDIO_JSON, { base64Fields: ['audioBase64'] })
  const { dictation, configStore, uploads } = app.dictum
  app.post(
    '/dictate',
    {
      bodyLimit: configStore.current.api.audioBodyLimit,
      onRequest: uploads.claim,
      schema: { response: { 200: DictationResultSchema } },
      config: {
        jsonError: errors.INVALID_AUDIO_JSON,
        doc: {
          summary: 'The whole dictation: transcribe, replacements, AI clean-up, history.',
          body: audioBody({
            appName: Type.Optional(Type.String()),
            windowTitle: Type.Optional(Type.String()),
          }),
          errors: [400, 401, 403, 413, 500, 502, 503, 504],
        },
      },
    },
    async (request, reply) => {
      const { source, fields } = await audioFromRequest(request)
      const result = await dictation.dictate(source, {
        appName: boundedText(fieldOrHeader(request, fields, 'appName', 'x-app-name'), 'appName'),
        windowTitle: boundedText(
          fieldOrHeader(request, fields, 'windowTitle', 'x-window-title'),
          'windowTitle',
        ),
        signal: clientGoneSignal(reply),
      })
      return { ...result.entry, stored: result.stored, storeError: result.storeError }
    },
  )
})

declare module '../../kernel/container.ts' {
  interface Cradle {
    dictation: DictationService
  }
}

/** The whole dictation (transcription, AI clean-up, history): its service and POST /v1/dictate. */
export const dictateFeature: Feature = {
  name: 'dictate',
  dependencies: ['transcribe', 'postprocess', 'history'],
  services: { dictation: asClass(DictationService).singleton() },
  routes: { prefix: '/v1', plugin: dictateRoutes },
}
