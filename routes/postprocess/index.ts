/** POST /v1/postprocess (spec 4.7): JSON `{ text }` or a text/plain body -> `{ text, provider, model }`. */

import { Type } from '@sinclair/typebox'
import { asClass } from 'awilix/browser'
import { clientGoneSignal } from '../../http/client-signal.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'
import { postprocessErrors } from '../../postprocess/errors.ts'
import { PostprocessService, textFromBody } from '../../postprocess/service.ts'

export const PostprocessResultSchema = Type.Object({
  text: Type.String(),
  provider: Type.String(),
  model: Type.String(),
})

export const postprocessRoutes = routePlugin('postprocess', async (app) => {
  const { postprocess } = app.dictum
  app.post(
    '/postprocess',
    {
      schema: { response: { 200: PostprocessResultSchema } },
      config: {
        jsonError: postprocessErrors.INVALID_TEXT_JSON,
        doc: {
          summary: 'Run text through the configured AI clean-up.',
          body: {
            content: {
              'application/json': { schema: Type.Object({ text: Type.String() }) },
              'text/plain': { schema: Type.String() },
            },
          },
          errors: [400, 401, 403, 413],
        },
      },
    },
    async (request, reply) =>
      postprocess.process(textFromBody(request.body), { signal: clientGoneSignal(reply) }),
  )
})

declare module '../../kernel/container.ts' {
  interface Cradle {
    postprocess: PostprocessService
  }
}

/** AI clean-up of text through the selected provider: the service dictation uses, POST /v1/postprocess. */
export const postprocessFeature: Feature = {
  name: 'postprocess',
  errors: postprocessErrors.table,
  services: { postprocess: asClass(PostprocessService).singleton() },
  routes: { prefix: '/v1', plugin: postprocessRoutes },
}
