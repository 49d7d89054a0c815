/**
 * The three input modes of POST /v1/transcribe (spec 4.5), also used by /v1/dictate: JSON `path`, JSON
 * `audioBase64` (+ `filename`), or the raw audio bytes with `X-Filename` / `Content-Type` as hints.
 * docs/api-decisions.md: a non-empty `path` wins, else `audioBase64` (invalid base64 counts as missing).
 * A multipart form (what `curl -F file=@note.wav` sends, as whisper.cpp's server takes it) is read too: its
 * `file` part is the audio, its other fields count as JSON fields; any other file part is refused.
 */
import type { FastifyRequest } from 'fastify'
import type { AudioSource } from '../audio/index.ts'
import { errors } from '../errors/catalogue.ts'
import { DecodedBase64 } from './json-body/parser.ts'

const DEFAULT_FILENAME = 'audio.wav'

export interface AudioRequest {
  source: AudioSource
  /** The JSON body's other fields (JSON modes), for routes that take more (appName, language…). */
  fields: Record<string, unknown>
}

/** A form carries one file part, `file`: the 400 for any other (a second file, or one under another name). */
export function secondFilePart(name: string, options?: { extra?: Record<string, unknown> }) {
  return errors.INVALID_REQUEST(
    `unexpected file part ${JSON.stringify(name.slice(0, 100))}: a form carries one file part, named "file" (the audio).`,
    options,
  )
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  const first = Array.isArray(value) ? value[0] : value
  return first && first.trim() !== '' ? first.trim() : undefined
}

export async function audioFromRequest(request: FastifyRequest): Promise<AudioRequest> {
  const body = request.body
  const contentType = header(request, 'content-type')
  if (Buffer.isBuffer(body) && contentType && /^multipart\/form-data\b/i.test(contentType)) {
    return audioFromForm(body, contentType)
  }
  if (Buffer.isBuffer(body)) {
    if (body.length === 0) throw errors.MISSING_AUDIO_BODY()
    return {
      source: {
        kind: 'bytes',
        data: body,
        filename: header(request, 'x-filename') ?? DEFAULT_FILENAME,
        ...(contentType ? { contentType } : {}),
      },
      fields: {},
    }
  }
  if (body === undefined || body === null) throw errors.MISSING_AUDIO_BODY()
  if (typeof body !== 'object' || Array.isArray(body)) throw errors.MISSING_AUDIO()
  const fields = body as Record<string, unknown>
  if (typeof fields.path === 'string' && fields.path.trim() !== '') {
    return { source: { kind: 'file', path: fields.path }, fields }
  }
  // Decoded by the route's JSON parser (json-body/parser.ts): null when it was not valid base64.
  const data = fields.audioBase64 instanceof DecodedBase64 ? fields.audioBase64.data : null
  if (data === null) throw errors.MISSING_AUDIO()
  const filename =
    typeof fields.filename === 'string' && fields.filename.trim() !== '' ? fields.filename : DEFAULT_FILENAME
  return { source: { kind: 'bytes', data, filename }, fields }
}

/** The `file` part of a multipart form (within the audio body limit already) and its string fields. */
async function audioFromForm(body: Buffer, contentType: string): Promise<AudioRequest> {
  let form: FormData
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData()
  } catch {
    throw errors.INVALID_REQUEST('the multipart form could not be read.')
  }
  const file = form.get('file')
  for (const [name, value] of form) {
    if (value instanceof Blob && value !== file) throw secondFilePart(name)
  }
  if (!(file instanceof Blob)) {
    throw errors.INVALID_REQUEST(
      'the form has no "file" part: send the audio as -F file=@audio.wav (OpenAI clients: POST /v1/audio/transcriptions).',
    )
  }
  const data = Buffer.from(await file.arrayBuffer())
  if (data.length === 0) throw errors.MISSING_AUDIO_BODY()
  const fields: Record<string, unknown> = {}
  for (const [name, value] of form) if (typeof value === 'string' && !(name in fields)) fields[name] = value
  const filename = file instanceof File && file.name ? file.name : DEFAULT_FILENAME
  return {
    source: { kind: 'bytes', data, filename, ...(file.type ? { contentType: file.type } : {}) },
    fields,
  }
}

/** A string field from the JSON body, else a header (for raw-audio requests). */
export function fieldOrHeader(
  request: FastifyRequest,
  fields: Record<string, unknown>,
  field: string,
  name: string,
): string {
  const value = fields[field]
  if (typeof value === 'string') return value
  return header(request, name) ?? ''
}

/** The named non-empty string fields of a JSON body (extension fields such as `language` and `prompt`). */
export function stringFields<K extends string>(
  fields: Record<string, unknown>,
  names: K[],
): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {}
  for (const name of names) {
    const value = fields[name]
    if (typeof value === 'string' && value.trim() !== '') out[name] = value
  }
  return out
}
