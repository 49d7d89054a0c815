/**
 * Reads the multipart form of `POST /v1/audio/transcriptions`: the `file` part into memory (bounded by the
 * audio body limit), every other field as strings (repeated fields such as `timestamp_granularities[]` keep
 * all their values, under the name without `[]`).
 */
import type { FastifyRequest } from 'fastify'
import { errors } from '../../kernel/errors.ts'

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
  const parts = request.parts({ limits: { fileSize: fileSizeLimit, fieldSize: FIELD_BYTES, fields: 64 } })
  for await (const part of parts) {
    if (part.type === 'file') {
      // Every file part must be read for the form to go on; only the first `file` is kept.
      const data = await part.toBuffer()
      if (part.fieldname === 'file' && file === null) {
        file = { data, filename: part.filename || 'audio.wav', mimetype: part.mimetype }
      }
      continue
    }
    const name = part.fieldname.replace(/\[\]$/, '')
    const values = fields.get(name) ?? []
    values.push(String(part.value))
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
