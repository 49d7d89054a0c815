/**
 * Files a route serves from memory (the web app's, Swagger UI's): their content type by extension, an ETag
 * from their bytes, and the answer, 304 when the client has the same bytes, gzip when the file keeps a
 * gzip form and the client takes it.
 */
import { createHash } from 'node:crypto'
import path from 'node:path'
import type { FastifyReply, FastifyRequest } from 'fastify'

export interface MemoryFile {
  type: string
  body: Buffer
  etag: string
  /** The body gzipped, when the file keeps it (made once, when the file is read). */
  gzip?: Buffer
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
}

/** The content type of a file by its extension, or undefined for one not served. */
export function contentTypeOf(file: string): string | undefined {
  return TYPES[path.extname(file)]
}

/** A strong ETag of the bytes. */
export function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`
}

export function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: MemoryFile,
  cacheControl: string,
) {
  reply
    .header('Content-Type', file.type)
    .header('Cache-Control', cacheControl)
    .header('ETag', file.etag)
    .header('X-Content-Type-Options', 'nosniff')
  if (file.gzip) reply.header('Vary', 'Accept-Encoding')
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send()
  if (file.gzip && /\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) {
    return reply.header('Content-Encoding', 'gzip').send(file.gzip)
  }
  return reply.send(file.body)
}
