/**
 * POST /v1/dictate (extension, docs/api-decisions.md): the three input modes of /v1/transcribe plus `appName` and
 * `windowTitle` (JSON fields, or X-App-Name / X-Window-Title headers) -> the history entry, with `stored`.
 */
import { Type } from '@sinclair/typebox'
import { clientGoneSignal } from '../../kernel/http/client-signal.ts'
import { routePlugin } from '../../kernel/route-plugin.ts'
import { HistoryEntrySchema } from '../history/schemas.ts'
import { audioFromRequest, fieldOrHeader } from '../transcribe/input.ts'

export const DictationResultSchema = Type.Composite([
  HistoryEntrySchema,
  Type.Object({ stored: Type.Boolean() }),
])

export const dictateRoutes = routePlugin('dictate', async (app) => {
  const { dictation, configStore } = app.dictum
  app.post(
    '/dictate',
    {
      bodyLimit: configStore.current.api.audioBodyLimit,
      schema: { response: { 200: DictationResultSchema } },
      config: { jsonError: 'INVALID_AUDIO_JSON' },
    },
    async (request, reply) => {
      const { source, fields } = await audioFromRequest(request)
      const result = await dictation.dictate(source, {
        appName: fieldOrHeader(request, fields, 'appName', 'x-app-name'),
        windowTitle: fieldOrHeader(request, fields, 'windowTitle', 'x-window-title'),
        signal: clientGoneSignal(reply),
      })
      return { ...result.entry, stored: result.stored }
    },
  )
})
