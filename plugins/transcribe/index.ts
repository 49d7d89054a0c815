/** POST /v1/transcribe (spec 4.5): any of the three input modes -> transcription result. */
import { clientGoneSignal } from '../../kernel/http/client-signal.ts'
import { useShallowJson } from '../../kernel/http/shallow-json.ts'
import { routePlugin } from '../../kernel/route-plugin.ts'
import { audioFromRequest, stringFields } from './input.ts'
import { TranscribeQuerySchema, TranscriptionResultSchema } from './schemas.ts'

export const transcribeRoutes = routePlugin('transcribe', async (app) => {
  // The body is a few flat fields and may be 25 MB (base64 audio): refuse deep nesting before parsing.
  useShallowJson(app, 'INVALID_AUDIO_JSON')
  const { transcription, history, configStore, uploads } = app.dictum
  app.post(
    '/transcribe',
    {
      bodyLimit: configStore.current.api.audioBodyLimit,
      onRequest: uploads.claim,
      schema: { querystring: TranscribeQuerySchema, response: { 200: TranscriptionResultSchema } },
      config: { jsonError: 'INVALID_AUDIO_JSON' },
    },
    async (request, reply) => {
      const { source, fields } = await audioFromRequest(request)
      const transcript = await transcription.transcribe(source, {
        signal: clientGoneSignal(reply),
        ...stringFields(fields, ['language', 'prompt']),
      })
      const { history: settings } = configStore.current
      if (settings.enabled && settings.recordTranscribe) {
        history.record({
          rawText: transcript.text,
          finalText: transcript.text,
          wasAIProcessed: false,
          aiProcessingError: null,
        })
      }
      const { text, confidence, sampleCount, provider, rawText } = transcript
      if (request.query.verbose !== true) return { text, confidence, sampleCount, provider, rawText }
      const { engine, language, durationSeconds, segments, words } = transcript
      return {
        text,
        confidence,
        sampleCount,
        provider,
        rawText,
        engine,
        language,
        durationSeconds,
        segments,
        words,
      }
    },
  )
})
