/**
 * A JSON body parser for routes that take only a few flat fields but a large body (base64 audio): bodies
 * nested deeper than `maxDepth` are refused by a scan over the text before `JSON.parse` builds anything. 24 MB
 * of nested arrays used to block the event loop for ~9 s and take ~870 MB while being parsed.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { type ErrorCode, errors } from '../errors.ts'

export function useShallowJson(app: FastifyInstance, error: ErrorCode, maxDepth = 4): void {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    (_request: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
      const text = typeof body === 'string' ? body : body.toString('utf8')
      if (text.trim() === '') return done(errors[error]())
      if (depthOver(text, maxDepth)) return done(errors[error]())
      try {
        done(null, JSON.parse(text))
      } catch {
        done(errors[error]())
      }
    },
  )
}

/** True when objects/arrays nest deeper than `max` (brackets inside strings do not count). */
export function depthOver(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
      continue
    }
    if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}
