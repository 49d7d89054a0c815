/** An AbortSignal that fires when the client goes away before the response is sent. */
import type { FastifyReply } from 'fastify'

export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  // The response's 'close' also fires after a normal finish: only an unfinished response means the client left.
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client went away'))
  })
  return controller.signal
}
