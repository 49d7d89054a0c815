/**
 * Reads the multipart form of `POST /v1/audio/transcriptions`: the `file` part into memory (bounded by the
 * audio body limit), every other field as strings (repeated fields such as `timestamp_granularities[]` keep
 * all their values, under the name without `[]`). The form carries one file part; every part, file and
 * fields, counts against the body limit, so a chunked body (no Content-Length) is bounded as well.
 */
import type { FastifyRequest } from 'fastify'
import { errors } from '../../errors/catalogue.ts'
import { secondFilePart } from '../../http/audio-request.ts'
import { MAX_KEYWORDS, MAX_LANGUAGES } from './request-fields.ts'

export interface UploadedFile {
  data: Buffer
  filename: string
  mimetype: string
}

export interface TranscriptionForm {
  file: UploadedFile
  fields: Map<string, string[]>
}

/** Form fields are short; a prompt is the longest one clients send. */
const FIELD_BYTES = 256 * 1024
/** Room for the keywords and languages a request may carry (request-fields.ts) beside the other fields. */
const MAX_FIELDS = MAX_KEYWORDS + MAX_LANGUAGES + 64
/** Room for the form's other fields and part headers beside the audio file. */
const FORM_OVERHEAD_BYTES = 1024 * 1024

/** The most a form may carry in all: the audio file's limit and room for the other fields. */
export function formLimit(fileSizeLimit: number): number {
  return fileSizeLimit + FORM_OVERHEAD_BYTES
}

export async function readTranscriptionForm(
  request: FastifyRequest,
  fileSizeLimit: number,
): Promise<TranscriptionForm> {
  if (!request.isMultipart()) {
    throw errors.INVALID_REQUEST('send the audio as multipart/form-data with a "file" field.', {
      extra: { param: 'file' },
    })
  }
  const fields = new Map<string, string[]>()
  let file: UploadedFile | null = null
  let bytes = 0
  const count = (more: number) => {
    bytes += more
    if (bytes > formLimit(fileSizeLimit)) throw errors.REQUEST_TOO_LARGE()
  }
  const parts = request.parts({
    limits: { fileSize: fileSizeLimit, fieldSize: FIELD_BYTES, fields: MAX_FIELDS },
  })
  for await (const part of parts) {
    count(Buffer.byteLength(part.fieldname))
    if (part.type === 'file') {
      // Refused before reading it: a second file part is never read into memory.
      if (file !== null || part.fieldname !== 'file') {
        throw secondFilePart(part.fieldname, { extra: { param: 'file' } })
      }
      const data = await part.toBuffer()
      count(data.length)
      file = { data, filename: part.filename || 'audio.wav', mimetype: part.mimetype }
      continue
    }
    const value = String(part.value)
    count(Buffer.byteLength(value))
    const name = part.fieldname.replace(/\[\]$/, '')
    const values = fields.get(name) ?? []
    values.push(value)
    fields.set(name, values)
  }
  if (file === null) {
    throw errors.INVALID_REQUEST('the form has no "file" part (the audio file to transcribe).', {
      extra: { param: 'file' },
    })
  }
  if (file.data.length === 0) throw errors.MISSING_AUDIO_BODY(undefined, { extra: { param: 'file' } })
  return { file, fields }
}
