/**
 * OpenAI-compatible routes (extension), so OpenAI clients and tools can use dictum as their server:
 * `POST /v1/audio/transcriptions` and `POST /v1/audio/translations` (multipart; same decoding, VAD,
 * replacements and limits as /v1/transcribe) and `GET /v1/models` (OpenAI's names, engines and catalog
 * models). Errors use OpenAI's shape. Multipart parsing is
 * registered here only.
 */

import multipart from '@fastify/multipart'
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { errors } from '../../errors/catalogue.ts'
import { clientGoneSignal } from '../../http/client-signal.ts'
import { toDictumError } from '../../http/error-handler.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import type { ConfigStore } from '../../kernel/config-store.ts'
import type { Feature } from '../../kernel/container.ts'
import { chooseModel } from '../../models/model-choice.ts'
import { requestWords } from '../../transcription/custom-words.ts'
import { TextDeltas } from '../../transcription/deltas.ts'
import type { Transcript } from '../../transcription/service.ts'
import { checkEngine, NOT_APPLIED_HEADER } from './engine-checks.ts'
import { openaiErrors } from './error-codes.ts'
import { openAiErrorHandler } from './errors.ts'
import { formLimit, readTranscriptionForm } from './form.ts'
import { listModelEntries } from './models.ts'
import { transcriptionParams } from './params.ts'
import { doneEvent, formatTranscript } from './responses.ts'
import {
  ModelEntrySchema,
  ModelListSchema,
  OpenAiErrorSchema,
  TranscriptionFormSchema,
  VerboseTranscriptionSchema,
} from './schemas.ts'
import { TranscriptEventStream } from './stream.ts'

/** 413 from Content-Length before reading anything, as on every other audio upload. */
function rejectOversized(configStore: ConfigStore) {
  return async (request: FastifyRequest) => {
    const length = Number(request.headers['content-length'])
    if (Number.isFinite(length) && length > formLimit(configStore.current.api.audioBodyLimit)) {
      throw errors.REQUEST_TOO_LARGE()
    }
  }
}

export const openaiRoutes = routePlugin('openai', async (app) => {
  const { transcription, history, configStore, engines, models, dictionary, uploads } = app.dictum
  const startedAt = Math.floor(Date.now() / 1000)
  await app.register(multipart, { throwFileSizeLimit: true })
  app.setErrorHandler(openAiErrorHandler)

  /** One handler for both routes: a translation is a transcription whose engine writes English. */
  const handle =
    (task: 'transcribe' | 'translate') => async (request: FastifyRequest, reply: FastifyReply) => {
      const form = await readTranscriptionForm(request, configStore.current.api.audioBodyLimit)
      // A translation takes the same fields (`language` then names the spoken language).
      const params = transcriptionParams(form.fields)
      const choice = await chooseModel(params.model, engines, models)
      const events = params.stream ? new TranscriptEventStream(reply) : null
      const deltas = new TextDeltas((raw) => dictionary.applyReplacementsSettled(raw))
      const asks = {
        keywords: params.keywords.length > 0,
        logprobs: params.logprobs,
        translate: task === 'translate',
      }
      let engineLanguages: readonly string[] = []
      let transcript: Transcript
      try {
        transcript = await transcription.transcribe(
          {
            kind: 'bytes',
            data: form.file.data,
            filename: form.file.filename,
            contentType: form.file.mimetype,
          },
          {
            signal: clientGoneSignal(reply),
            ...(params.language ? { language: params.language } : {}),
            ...(params.languages ? { languages: params.languages } : {}),
            ...(params.prompt ? { prompt: params.prompt } : {}),
            ...(params.keywords.length > 0 ? { customWords: requestWords(params.keywords) } : {}),
            ...(params.chunking ? { chunking: params.chunking } : {}),
            ...(task === 'translate' ? { task } : {}),
            ...choice,
            onEngine: async (engine) => {
              engineLanguages = engine.capabilities.languages
              const notApplied = await checkEngine(engine, asks, engines)
              if (notApplied.length > 0) reply.header(NOT_APPLIED_HEADER, notApplied.join(', '))
            },
            ...(events ? { onPiece: (piece) => piece.speech && events.delta(deltas.add(piece.text)) } : {}),
          },
        )
      } catch (err) {
        if (!events?.started) throw err
        const error = toDictumError(err as Error, request)
        if (error.statusCode >= 500) request.log.error({ err }, 'streamed transcription failed')
        events.fail(error)
        return reply
      }
      await history.recordTranscription(transcript, request.log)
      const replyOptions = { ...params, engineLanguages, translate: task === 'translate' }
      if (events) {
        const rest = deltas.finish(transcript.text)
        if (rest === null) request.log.warn({}, 'the dictionary changed during a streamed transcription')
        events.delta(rest ?? '')
        events.done(doneEvent(transcript, replyOptions))
        return reply
      }
      const formatted = formatTranscript(transcript, replyOptions, (text) =>
        dictionary.applyReplacements(text),
      )
      return reply.type(formatted.contentType).send(formatted.body)
    }

  const upload = (summary: string) => ({
    onRequest: [rejectOversized(configStore), uploads.claim],
    config: {
      doc: {
        summary,
        body: { content: { 'multipart/form-data': { schema: TranscriptionFormSchema } } },
        success: Type.Union([Type.Object({ text: Type.String() }), VerboseTranscriptionSchema]),
        errors: [400, 401, 403, 404, 413, 500, 503, 504],
        openAiErrors: true,
        textResponses: ['text/plain', 'application/x-subrip', 'text/vtt'],
      },
    },
  })
  app.post(
    '/audio/transcriptions',
    upload("OpenAI's transcription API (multipart form)."),
    handle('transcribe'),
  )
  app.post(
    '/audio/translations',
    upload("OpenAI's translation API (multipart form): English text, from engines that translate."),
    handle('translate'),
  )

  app.get(
    '/models',
    {
      schema: { response: { 200: ModelListSchema } },
      config: {
        doc: {
          summary: "OpenAI's model list: OpenAI's names, engines and catalog models.",
          errors: [401, 403],
        },
      },
    },
    async () => ({
      object: 'list' as const,
      data: await listModelEntries(engines, models, startedAt),
    }),
  )

  app.get<{ Params: { id: string } }>(
    '/models/:id',
    {
      schema: { response: { 200: ModelEntrySchema, 404: OpenAiErrorSchema } },
      config: { doc: { summary: 'One model.', errors: [401, 403, 404], openAiErrors: true } },
    },
    async (request) => {
      const entries = await listModelEntries(engines, models, startedAt)
      const found = entries.find((entry) => entry.id === request.params.id)
      if (!found) {
        throw errors.MODEL_NOT_FOUND(`${request.params.id}. GET /v1/models lists the engines and models.`, {
          extra: { param: 'model' },
        })
      }
      return found
    },
  )
})

/** OpenAI's transcription API and model list, on the transcription service. */
export const openaiFeature: Feature = {
  name: 'openai',
  errors: openaiErrors.table,
  dependencies: ['transcribe', 'history', 'models', 'dictionary'],
  routes: { prefix: '/v1', plugin: openaiRoutes },
}
