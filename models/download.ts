/**
 * Downloads one file over HTTP(S) into a `.part` file: streaming, resumable (HTTP Range, with If-Range when
 * the server gave a validator), retried with backoff when the connection drops, SHA-256 computed while the
 * bytes arrive (over the resumed prefix too), checked against the expected digest at the end.
 *
 * A sidecar `<part>.json` remembers which URL and validator the partial bytes belong to, so a later run
 * resumes only what it can trust and restarts from zero otherwise.
 */
import { createHash, type Hash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { type FileHandle, open, readFile, rm, stat, writeFile } from 'node:fs/promises'
import type { ReadableStreamReadResult, ReadableStream as WebReadableStream } from 'node:stream/web'
import { errors } from '../errors/catalogue.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import { discardBody, networkFailure, OutboundFailure, openResponse, redactUrl } from '../lib/http-client.ts'
import { sleep } from '../lib/timeout.ts'
import { parseContentRange, parseLength, safeParse } from './http-util.ts'
import { type ProgressListener, ProgressMeter } from './progress-meter.ts'

export interface RetryPolicy {
  /** Failed attempts in a row (without new bytes) before giving up. */
  attempts: number
  baseDelayMs: number
  maxDelayMs: number
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 500, maxDelayMs: 10_000 }

export interface DownloadRequest {
  url: string
  /** Where the bytes go (`<modelsDir>/.partial/<id>.<ext>.part`). */
  partPath: string
  /** Lower-case hex SHA-256 the file must have, or null to accept (and report) whatever arrives. */
  expectedSha256: string | null
  /** Names the download in errors and logs (the model id). */
  label: string
  fetch?: typeof fetch | undefined
  signal?: AbortSignal | undefined
  onProgress?: ProgressListener | undefined
  /** Called when every byte is there and the checksum is computed and compared (with the size). */
  onVerify?: ((bytes: number) => void) | undefined
  retry?: RetryPolicy | undefined
  logger?: PluginLogger | undefined
}

export interface DownloadResult {
  path: string
  sha256: string
  sizeBytes: number
}

interface PartMeta {
  url: string
  etag: string | null
  lastModified: string | null
}

/** The hash of the bytes on disk so far; re-read from the file whenever it may not match them. */
interface HashState {
  hash: Hash
  bytes: number
}

class RetryableError extends Error {}

export async function downloadFile(request: DownloadRequest): Promise<DownloadResult> {
  const parsed = safeParse(request.url)
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
    throw errors.MODEL_DOWNLOAD_FAILED(`${request.label}: not an http(s) URL: ${redactUrl(request.url)}`)
  }
  const retry = request.retry ?? DEFAULT_RETRY
  const meter = new ProgressMeter({ onProgress: request.onProgress })
  const state: HashState = { hash: createHash('sha256'), bytes: 0 }
  await forgetForeignPart(request)
  let failures = 0
  // A failed or cancelled download must not send a held-back progress report after its error.
  try {
    for (;;) {
      request.signal?.throwIfAborted()
      const before = await partSize(request.partPath)
      try {
        await attempt(request, state, meter)
        break
      } catch (error) {
        if (request.signal?.aborted) throw request.signal.reason ?? error
        if (!(error instanceof RetryableError)) throw error
        failures = (await partSize(request.partPath)) > before ? 1 : failures + 1
        if (failures > retry.attempts) {
          throw errors.MODEL_DOWNLOAD_FAILED(
            `${request.label}: ${error.message} (gave up after ${failures} attempts)`,
          )
        }
        const delay = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (failures - 1))
        request.logger?.warn(
          { model: request.label, attempt: failures, error: error.message },
          'download retry',
        )
        await sleep(delay, request.signal)
      }
    }
  } finally {
    meter.close()
  }
  meter.finish()
  const sizeBytes = await partSize(request.partPath)
  request.onVerify?.(sizeBytes)
  const sha256 = await digestOfPart(request.partPath, state)
  if (request.expectedSha256 !== null && sha256 !== request.expectedSha256) {
    await removePart(request.partPath)
    throw errors.MODEL_CHECKSUM_MISMATCH(
      `${request.label}: the download from ${redactUrl(request.url)} has SHA-256 ${sha256}, ` +
        `expected ${request.expectedSha256}. The file was deleted.`,
    )
  }
  return { path: request.partPath, sha256, sizeBytes }
}

/** Deletes a partial download and its sidecar. */
export async function removePart(partPath: string): Promise<void> {
  await rm(partPath, { force: true })
  await rm(metaPath(partPath), { force: true })
}

/** One request: resumes from what is on disk, streams the body to the file. Throws RetryableError to retry. */
async function attempt(request: DownloadRequest, state: HashState, meter: ProgressMeter): Promise<void> {
  const offset = await partSize(request.partPath)
  const response = await send(request, offset)
  const plan = await planBody(request, response, offset)
  if (plan === 'complete') {
    await discardBody(response)
    meter.setTotal(offset)
    meter.reset(offset)
    return
  }
  meter.setTotal(plan.total)
  if (plan.start === 0) {
    state.hash = createHash('sha256')
    state.bytes = 0
  } else {
    await alignHash(request.partPath, state, plan.start)
  }
  meter.reset(plan.start)
  await writeBody(request, response, plan.start, state, meter)
  const size = await partSize(request.partPath)
  if (plan.total !== null && size < plan.total) {
    throw new RetryableError(`connection closed after ${size} of ${plan.total} bytes`)
  }
}

async function send(request: DownloadRequest, offset: number): Promise<Response> {
  const headers: Record<string, string> = { 'accept-encoding': 'identity' }
  if (offset > 0) {
    headers.range = `bytes=${offset}-`
    const meta = await readMeta(request.partPath)
    const validator = meta?.etag && !meta.etag.startsWith('W/') ? meta.etag : meta?.lastModified
    if (validator) headers['if-range'] = validator
  }
  try {
    return await openResponse({ url: request.url, headers, signal: request.signal, fetch: request.fetch })
  } catch (error) {
    if (error instanceof OutboundFailure) throw new RetryableError(`request failed: ${error.message}`)
    throw error
  }
}

type BodyPlan = { start: number; total: number | null } | 'complete'

/** Decides where the body starts from the status: 206 continues, 200 restarts, 416 may mean "already done". */
async function planBody(request: DownloadRequest, response: Response, offset: number): Promise<BodyPlan> {
  const { status } = response
  if (status === 206) {
    const range = parseContentRange(response.headers.get('content-range'))
    if (range && range.start === offset) return { start: offset, total: range.total }
    await discardBody(response)
    await removePart(request.partPath)
    throw new RetryableError('server sent a different range than asked; starting over')
  }
  if (status === 200) {
    await writeMeta(request.partPath, {
      url: request.url,
      etag: response.headers.get('etag'),
      lastModified: response.headers.get('last-modified'),
    })
    return { start: 0, total: parseLength(response.headers.get('content-length')) }
  }
  if (status === 416 && offset > 0) {
    const range = parseContentRange(response.headers.get('content-range'))
    if (range?.total === offset) return 'complete'
    await discardBody(response)
    await removePart(request.partPath)
    throw new RetryableError('server rejected the resume range; starting over')
  }
  await discardBody(response)
  const message = `HTTP ${status} from ${redactUrl(request.url)}`
  if (status === 408 || status === 429 || status >= 500) throw new RetryableError(message)
  throw errors.MODEL_DOWNLOAD_FAILED(`${request.label}: ${message}`)
}

/**
 * Appends the body to the part file chunk by chunk, each chunk written before the next is read: when the
 * connection drops, every byte that arrived is on disk, so the retry resumes from exactly there. (A stream
 * pipeline destroys the file stream on a source error and drops the writes still buffered in it.)
 */
async function writeBody(
  request: DownloadRequest,
  response: Response,
  start: number,
  state: HashState,
  meter: ProgressMeter,
): Promise<void> {
  const reader = (response.body as unknown as WebReadableStream<Uint8Array> | null)?.getReader()
  let finished = false
  try {
    const out = await openPart(request, start > 0 ? 'a' : 'w')
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>
        try {
          chunk = reader ? await reader.read() : { done: true, value: undefined }
        } catch (error) {
          finished = true // a failed read has released the body
          if (request.signal?.aborted) throw request.signal.reason ?? error
          throw new RetryableError(`connection dropped: ${networkFailure(error).message}`)
        }
        if (chunk.done) {
          finished = true
          return
        }
        await writeChunk(request, out, chunk.value)
        state.hash.update(chunk.value)
        state.bytes += chunk.value.length
        meter.add(chunk.value.length)
        request.signal?.throwIfAborted()
      }
    } finally {
      await out.close()
    }
  } finally {
    // Stopped early (abort, a local write failure): the rest of the body is not wanted; let the connection go.
    if (!finished) await reader?.cancel().catch(() => {})
  }
}

async function openPart(request: DownloadRequest, flags: 'a' | 'w'): Promise<FileHandle> {
  try {
    return await open(request.partPath, flags)
  } catch (error) {
    throw localWriteFailure(request, error)
  }
}

async function writeChunk(request: DownloadRequest, out: FileHandle, chunk: Uint8Array): Promise<void> {
  try {
    await out.write(chunk)
  } catch (error) {
    throw localWriteFailure(request, error)
  }
}

function localWriteFailure(request: DownloadRequest, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code ?? 'EIO'
  return errors.MODEL_DOWNLOAD_FAILED(`${request.label}: cannot write the download: ${code}`)
}

/** Makes the running hash cover exactly the first `bytes` bytes of the file (re-reading them if needed). */
async function alignHash(partPath: string, state: HashState, bytes: number): Promise<void> {
  if (state.bytes === bytes) return
  state.hash = createHash('sha256')
  state.bytes = 0
  if (bytes === 0) return
  const input = createReadStream(partPath, { start: 0, end: bytes - 1 })
  for await (const chunk of input) {
    state.hash.update(chunk as Buffer)
    state.bytes += (chunk as Buffer).length
  }
}

async function digestOfPart(partPath: string, state: HashState): Promise<string> {
  await alignHash(partPath, state, await partSize(partPath))
  return state.hash.digest('hex')
}

/** A partial file that belongs to another URL (or has no sidecar) cannot be resumed safely. */
async function forgetForeignPart(request: DownloadRequest): Promise<void> {
  if ((await partSize(request.partPath)) === 0) return
  const meta = await readMeta(request.partPath)
  if (meta?.url !== request.url) await removePart(request.partPath)
}

async function partSize(partPath: string): Promise<number> {
  try {
    return (await stat(partPath)).size
  } catch {
    return 0
  }
}

function metaPath(partPath: string): string {
  return `${partPath}.json`
}

async function readMeta(partPath: string): Promise<PartMeta | null> {
  try {
    return JSON.parse(await readFile(metaPath(partPath), 'utf8')) as PartMeta
  } catch {
    return null
  }
}

async function writeMeta(partPath: string, meta: PartMeta): Promise<void> {
  await writeFile(metaPath(partPath), JSON.stringify(meta))
}
