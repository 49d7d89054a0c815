/**
 * POST /v1/jobs's body as job specs: JSON with exactly one of `path` (an audio file, or a folder: one job per
 * audio file in it), `glob` (one job per match) or `url`, or a multipart form whose `file` part is the audio
 * (spooled under `jobs.resultsDir`). Every other field is checked here, with the field named in the error.
 */

import { randomBytes } from 'node:crypto'
import { mkdir, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { FastifyRequest } from 'fastify'
import type { DictumConfig } from '../../config/schema.ts'
import { errors } from '../../errors/catalogue.ts'
import { audioFromRequest } from '../../http/audio-request.ts'
import { jobsErrors } from '../../jobs/errors.ts'
import { audioFilesIn, globFiles, hasWildcard } from '../../jobs/file-match.ts'
import { resultsDirOf, spoolDirOf } from '../../jobs/paths.ts'
import {
  DEFAULT_PRIORITY,
  type JobInput,
  type JobSpec,
  MAX_PRIORITY,
  MIN_PRIORITY,
} from '../../jobs/types.ts'
import { checkAudioUrl } from '../../jobs/url-audio.ts'
import { UrlPolicy } from '../../jobs/url-policy.ts'
import { checkStoredText } from '../../lib/validate.ts'
import { DOCUMENT_FORMATS, type DocumentFormat } from '../../transcription/formats.ts'

export const DEFAULT_FORMATS: DocumentFormat[] = ['json']
const MAX_KEY_LENGTH = 200
const MAX_PROMPT_LENGTH = 4000
const FIELDS = new Set(['path', 'glob', 'url', 'formats', 'priority', 'idempotencyKey', 'language', 'prompt'])

/** One job (a file, a URL or an upload), or a batch (a folder or a glob): `batchId` is set for a batch. */
export interface Submission {
  specs: JobSpec[]
  batchId: string | null
}

function invalid(param: string, detail: string) {
  return errors.INVALID_REQUEST(detail, { extra: { param } })
}

/** Every text a job stores goes through the one check of stored text (no lone surrogate). */
function storedText(value: string, param: string): string {
  checkStoredText(value, param, (detail) => invalid(param, detail))
  return value
}

export async function submissionFromRequest(
  request: FastifyRequest,
  config: Readonly<DictumConfig>,
): Promise<Submission> {
  const contentType = request.headers['content-type'] ?? ''
  if (/^multipart\/form-data\b/i.test(contentType)) return uploadSubmission(request, config)
  const body = request.body
  if (
    body === undefined ||
    body === null ||
    typeof body !== 'object' ||
    Array.isArray(body) ||
    Buffer.isBuffer(body)
  ) {
    throw errors.INVALID_REQUEST(
      'send a JSON object with one of path, glob or url, or a multipart form with a "file" part.',
    )
  }
  const fields = body as Record<string, unknown>
  for (const name of Object.keys(fields)) {
    if (!FIELDS.has(name)) throw invalid(name, `unknown field ${JSON.stringify(name.slice(0, 100))}.`)
  }
  const options = commonFields(fields, request)
  const given = (['path', 'glob', 'url'] as const).filter((k) => fields[k] !== undefined)
  if (given.length !== 1) {
    throw errors.INVALID_REQUEST(
      given.length === 0
        ? 'say what to transcribe: path (a file or a folder), glob or url.'
        : `give one of path, glob and url, not ${given.join(' and ')}.`,
    )
  }
  const kind = given[0] as 'path' | 'glob' | 'url'
  const value = fields[kind]
  if (typeof value !== 'string' || value.trim() === '')
    throw invalid(kind, `${kind} must be a non-empty string.`)
  storedText(value, kind)
  if (kind === 'url') {
    checkAudioUrl(value, new UrlPolicy(config.jobs.urlAllow, config.jobs.urlDeny))
    return single({ kind: 'url', url: value }, options)
  }
  if (!path.isAbsolute(value)) throw errors.AUDIO_PATH_NOT_ABSOLUTE(value, { extra: { param: kind } })
  if (kind === 'glob') {
    if (!hasWildcard(value))
      throw invalid('glob', 'glob has no wildcard (* or ?): send a file or folder as path.')
    return batch(await globFiles(path.normalize(value)), value, options)
  }
  const info = await stat(value).catch(() => null)
  if (!info) throw errors.AUDIO_FILE_NOT_FOUND(value, { extra: { param: 'path' } })
  if (info.isDirectory()) return batch(await audioFilesIn(value), value, options)
  return single({ kind: 'path', path: path.normalize(value) }, options)
}

type CommonFields = Omit<JobSpec, 'input' | 'batchId'>

function single(input: JobInput, options: CommonFields): Submission {
  return { specs: [{ ...options, input, batchId: null }], batchId: null }
}

/**
 * One job per file. With an idempotency key each job's key is `<key>:<file>`, so the same submission again
 * returns the same jobs (and a file added to the folder since gets a job of its own).
 */
function batch(files: string[], what: string, options: CommonFields): Submission {
  if (files.length === 0) throw jobsErrors.JOB_NO_FILES(what)
  const batchId = `batch_${randomBytes(10).toString('hex')}`
  const specs = files.map(
    (file): JobSpec => ({
      ...options,
      input: { kind: 'path', path: file },
      batchId,
      idempotencyKey: options.idempotencyKey === null ? null : `${options.idempotencyKey}:${file}`,
    }),
  )
  return { specs, batchId }
}

async function uploadSubmission(
  request: FastifyRequest,
  config: Readonly<DictumConfig>,
): Promise<Submission> {
  const { source, fields } = await audioFromRequest(request)
  for (const name of Object.keys(fields)) {
    if (!FIELDS.has(name) || name === 'path' || name === 'glob' || name === 'url') {
      throw invalid(
        name,
        `unknown form field ${JSON.stringify(name.slice(0, 100))} (the audio is the "file" part).`,
      )
    }
  }
  const options = commonFields(fields, request)
  if (source.kind !== 'bytes') throw errors.MISSING_AUDIO_BODY()
  const filename = path.basename(source.filename ?? 'audio.wav').slice(0, 200) || 'audio.wav'
  const spool = spoolDirOf(config)
  await mkdir(spool, { recursive: true })
  const safe = filename.replace(/[^A-Za-z0-9._-]/g, '_')
  const file = path.join(spool, `${randomBytes(10).toString('hex')}-${safe}`)
  await writeFile(file, source.data)
  const relative = path.relative(resultsDirOf(config), file)
  return single({ kind: 'upload', file: relative, filename }, options)
}

/** formats, priority, idempotencyKey (or the Idempotency-Key header), language, prompt. */
function commonFields(fields: Record<string, unknown>, request: FastifyRequest): CommonFields {
  return {
    formats: parseFormats(fields.formats),
    priority: parsePriority(fields.priority),
    idempotencyKey: parseKey(fields.idempotencyKey ?? request.headers['idempotency-key']),
    language: optionalString(fields.language, 'language', 32),
    prompt: optionalString(fields.prompt, 'prompt', MAX_PROMPT_LENGTH),
  }
}

/** An array of format names, or (forms, the CLI) one string of comma-separated names. */
function parseFormats(raw: unknown): DocumentFormat[] {
  if (raw === undefined) return [...DEFAULT_FORMATS]
  const list = typeof raw === 'string' ? raw.split(',').map((f) => f.trim()) : raw
  if (!Array.isArray(list) || list.length === 0) {
    throw invalid('formats', `formats must be a non-empty list of: ${DOCUMENT_FORMATS.join(', ')}.`)
  }
  const formats: DocumentFormat[] = []
  for (const format of list) {
    if (typeof format !== 'string' || !(DOCUMENT_FORMATS as readonly string[]).includes(format)) {
      throw invalid(
        'formats',
        `unknown format ${JSON.stringify(String(format).slice(0, 50))} (use: ${DOCUMENT_FORMATS.join(', ')}).`,
      )
    }
    if (!formats.includes(format as DocumentFormat)) formats.push(format as DocumentFormat)
  }
  return formats
}

function parsePriority(raw: unknown): number {
  if (raw === undefined) return DEFAULT_PRIORITY
  const value = typeof raw === 'string' && /^[-+]?\d+$/.test(raw.trim()) ? Number(raw) : raw
  if (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_PRIORITY || value > MAX_PRIORITY) {
    throw invalid('priority', `priority must be an integer from ${MIN_PRIORITY} to ${MAX_PRIORITY}.`)
  }
  return value
}

function parseKey(raw: unknown): string | null {
  if (raw === undefined) return null
  const value = Array.isArray(raw) ? raw[0] : raw
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_KEY_LENGTH) {
    throw invalid(
      'idempotencyKey',
      `idempotencyKey must be a non-empty string of at most ${MAX_KEY_LENGTH} characters.`,
    )
  }
  return storedText(value, 'idempotencyKey')
}

function optionalString(raw: unknown, name: string, max: number): string | null {
  if (raw === undefined || raw === null || raw === '') return null
  if (typeof raw !== 'string' || raw.length > max) {
    throw invalid(name, `${name} must be a string of at most ${max} characters.`)
  }
  return storedText(raw, name)
}
