/** AI enhancement of text (spec 4.7): request parsing and the call to the selected provider. */

import { errors } from '../errors/catalogue.ts'
import type { ProcessOutcome, ProviderRegistry } from '../kernel/provider-registry.ts'
import { isWellFormedText } from '../lib/validate.ts'
import { postprocessErrors } from './errors.ts'

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * The text of a /v1/postprocess body: `{ "text": … }` for JSON (already parsed by Fastify), otherwise the
 * raw bytes, which must be UTF-8 (any non-JSON content type counts as plain text: `curl -d` sends
 * `application/x-www-form-urlencoded`).
 */
export function textFromBody(body: unknown): string {
  if (Buffer.isBuffer(body)) {
    try {
      return utf8.decode(body)
    } catch {
      throw postprocessErrors.TEXT_NOT_UTF8()
    }
  }
  if (body === undefined || body === null) throw postprocessErrors.EMPTY_TEXT()
  if (typeof body !== 'object' || Array.isArray(body)) throw postprocessErrors.MISSING_TEXT()
  const text = (body as { text?: unknown }).text
  if (text === undefined || text === null) throw postprocessErrors.MISSING_TEXT()
  if (typeof text !== 'string') throw errors.INVALID_REQUEST('"text" must be a string.')
  if (!isWellFormedText(text))
    throw errors.INVALID_REQUEST('"text" is not valid Unicode text (a lone surrogate).')
  return text
}

export class PostprocessService {
  readonly #providers: ProviderRegistry

  constructor({ providers }: { providers: ProviderRegistry }) {
    this.#providers = providers
  }

  /** Runs the selected provider; empty or blank text is rejected before any provider is called. */
  async process(
    text: string,
    options: { appName?: string; signal?: AbortSignal; commandsApplied?: boolean } = {},
  ): Promise<ProcessOutcome> {
    if (text.trim() === '') throw postprocessErrors.EMPTY_TEXT()
    return this.#providers.process(text, options)
  }
}
