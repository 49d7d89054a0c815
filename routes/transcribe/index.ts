/** POST /v1/transcribe (spec 4.5): any of the three input modes -> transcription result. */

import { asClass } from 'awilix/browser'
import { errors } from '../../errors/catalogue.ts'
import { audioFromRequest, stringFields } from '../../http/audio-request.ts'
import { clientGoneSignal } from '../../http/client-signal.ts'
import { useShallowJson } from '../../http/json-body/parser.ts'
import { audioBody } from '../../http/route-doc.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'
import { TranscribeQuerySchema, TranscriptionResultSchema } from '../../transcription/schemas.ts'
import { TranscriptionService } from '../../transcription/service.ts'

export const transcribeRoutes = routePlugin('transcribe', async (app) => {
  // The body is a few flat fields and may be 25 MB (base64 audio): refuse deep nesting before parsing.
  useShallowJson(app, errors.INVALID_AUDIO_JSON, { base64Fields: ['audioBase64'] })
  const { transcription, history, configStore, uploads } = app.dictum
  app.post(
    '/transcribe',
    {
      bodyLimit: configStore.current.api.audioBodyLimit,
      onRequest: uploads.claim,
      schema: { querystring: TranscribeQuerySchema, response: { 200: TranscriptionResultSchema } },
      config: {
        jsonError: errors.INVALID_AUDIO_JSON,
        doc: {
          summary: 'Transcribe audio: a path, base64, or the raw bytes.',
          body: audioBody(),
          errors: [400, 401, 403, 413, 500, 502, 503, 504],
        },
      },
    },
    async (request, reply) => {
      const { source, fields } = await audioFromRequest(request)
      const transcript = await transcription.transcribe(source, {
        signal: clientGoneSignal(reply),
        ...stringFields(fields, ['language', 'prompt']),
      })
      await history.recordTranscription(transcript, request.log)
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

declare module '../../kernel/container.ts' {
  interface Cradle {
    transcription: TranscriptionService
  }
}

/** Audio to text: the transcription service (decode, VAD, engine, dictionary), POST /v1/transcribe. */
export const transcribeFeature: Feature = {
  name: 'transcribe',
  dependencies: ['audio', 'vad', 'dictionary', 'history'],
  services: { transcription: asClass(TranscriptionService).singleton() },
  routes: { prefix: '/v1', plugin: transcribeRoutes },
}
