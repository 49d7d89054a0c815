/**
 * A cap on audio uploads being received at once (`api.maxConcurrentUploads`): each upload holds up to
 * `api.audioBodyLimit` in memory until its body is in, so many slow or stalled ones at once grew the process
 * by hundreds of MB. An upload over the cap is answered 503 with `Retry-After` before its body is read (and
 * its connection closed, see error-handler.ts). A slot is held from the request's arrival until its body is
 * received or the request ends; transcriptions waiting for the engine no longer hold one.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { errors } from '../errors/catalogue.ts'
import type { ConfigStore } from '../kernel/config-store.ts'

/** Seconds a client is told to wait: slots free as bodies arrive, or at the request timeout. */
const RETRY_AFTER_SECONDS = 1

export class UploadSlots {
  readonly #configStore: ConfigStore
  #active = 0

  constructor({ configStore }: { configStore: ConfigStore }) {
    this.#configStore = configStore
  }

  /** Uploads being received now. */
  get active(): number {
    return this.#active
  }

  /** The onRequest hook of an audio route. */
  readonly claim = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const limit = this.#configStore.current.api.maxConcurrentUploads
    if (this.#active >= limit) {
      reply.header('Retry-After', String(RETRY_AFTER_SECONDS))
      throw errors.TOO_MANY_UPLOADS(
        `at most ${limit} audio uploads are received at a time (api.maxConcurrentUploads); retry in a moment.`,
      )
    }
    this.#active++
    let held = true
    const release = () => {
      if (!held) return
      held = false
      this.#active--
    }
    // The request's 'end': the whole body was read. The response's 'close': the request is over (answered,
    // aborted, timed out). The request's own 'close' is not enough: a body refused unread (a form without a
    // boundary) never ends, and its request never closed either, so its slot was held for good.
    request.raw.once('end', release)
    reply.raw.once('close', release)
  }
}
