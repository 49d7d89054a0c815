/**
 * What a route says about itself in the OpenAPI document beyond its own schemas, set on the route
 * (`config: { doc }`): its summary, the error statuses it answers, and the request body of a route that reads
 * its body itself (three input modes for audio, exact error messages from the contract), which Fastify must
 * not validate. routes/openapi merges it into the route's operation when the document is generated, never
 * into validation.
 */
import { type TSchema, Type } from '@sinclair/typebox'

export interface RouteDoc {
  summary: string
  /** The error statuses it answers (the bodies are dictum's error shape, or OpenAI's with `openAiErrors`). */
  errors: number[]
  /** The success body, for a route whose handler answers several formats (no response schema to compile). */
  success?: TSchema
  /** The request body as the document shows it. */
  body?: unknown
  /** Errors in OpenAI's shape instead of dictum's. */
  openAiErrors?: boolean
  /** Extra 200 content types (text formats). */
  textResponses?: string[]
  /** The whole 200 response, for a route that answers something other than JSON (or several formats). */
  content?: unknown
  /** Answered without the token (the document says so). */
  public?: boolean
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's documentation (tests check that every route of the API has one). */
    doc?: RouteDoc
  }
}

export const jsonBody = (schema: TSchema) => ({ content: { 'application/json': { schema } } })

/** A 200 response of one non-JSON content type. */
export const textResponse = (type: string, description: string) => ({
  description,
  content: { [type]: { schema: Type.String() } },
})

const Binary = Type.String({ format: 'binary' })

const AudioJson = Type.Object(
  {
    path: Type.Optional(Type.String({ description: 'Absolute path of an audio file on this machine.' })),
    audioBase64: Type.Optional(Type.String({ description: 'The audio file, base64.' })),
    filename: Type.Optional(Type.String({ description: 'Name of the file (its extension helps decoding).' })),
    language: Type.Optional(
      Type.String({ description: 'Language hint (ISO 639-1) for engines that take one.' }),
    ),
    prompt: Type.Optional(Type.String({ description: 'Context text for engines that take one.' })),
  },
  { description: 'Mode A: a path; mode B: base64. A non-empty `path` wins.' },
)

/** The body of a route that reads audio (http/audio-request.ts): JSON with a path or base64, or the bytes. */
export const audioBody = (extra: Record<string, TSchema> = {}) => ({
  content: {
    'application/json': { schema: Type.Composite([AudioJson, Type.Object(extra)]) },
    'audio/*': { schema: Binary },
    'application/octet-stream': { schema: Binary },
  },
})
