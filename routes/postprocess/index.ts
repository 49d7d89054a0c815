/** POST /v1/postprocess (spec 4.7): JSON `{ text }` or a text/plain body -> `{ text, provider, model }`. */
import { Type } from '@sinclair/typebox'
import { asClass } from 'awilix'
import { clientGoneSignal } from '../../http/client-signal.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import type { Feature } from '../../kernel/container.ts'
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
    { schema: { response: { 200: PostprocessResultSchema } }, config: { jsonError: 'INVALID_TEXT_JSON' } },
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
  services: { postprocess: asClass(PostprocessService).singleton() },
  routes: { prefix: '/v1', plugin: postprocessRoutes },
}
