/**
 * A job's audio given by URL: fetched when the job runs (by whichever process runs it) into a spool file,
 * through lib/http-client.ts, within `jobs.maxUrlBytes` and `jobs.urlTimeoutMs`. Only http and https.
 * A reply the server refuses (4xx) or one too large fails the job at once; a network failure, a time-out or
 * a 5xx may pass, so the job is tried again.
 */
import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { errors, isDictumError } from '../kernel/errors.ts'
import { discardBody, OutboundFailure, openResponse, redactUrl } from '../lib/http-client.ts'
import { timeLimit } from '../lib/timeout.ts'

/** The URL if it is one a job may fetch, else the 400 that says why. */
export function checkAudioUrl(value: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw errors.INVALID_REQUEST('url is not a valid URL.', { extra: { param: 'url' } })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw errors.INVALID_REQUEST(`url must be http or https, not ${url.protocol.replace(/:$/, '')}.`, {
      extra: { param: 'url' },
    })
  }
  return url
}

export interface DownloadLimits {
  maxBytes: number
  timeoutMs: number
  signal: AbortSignal
}

/** Writes the body of `url` to `file`; on any failure the partial file is removed. */
export async function downloadAudio(url: string, file: string, limits: DownloadLimits): Promise<void> {
  const shown = redactUrl(url)
  const limit = timeLimit(limits.timeoutMs, { signal: limits.signal })
  try {
    const response = await openResponse({ url, signal: limit.signal })
    if (!response.ok) {
      await discardBody(response)
      const detail = `${shown} answered ${response.status}.`
      throw response.status >= 500 ? errors.AUDIO_URL_FAILED(detail) : errors.AUDIO_URL_REFUSED(detail)
    }
    const declared = Number(response.headers.get('content-length'))
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      await discardBody(response)
      throw tooLarge(shown, limits.maxBytes)
    }
    if (!response.body) throw errors.AUDIO_URL_REFUSED(`${shown} sent no body.`)
    let size = 0
    const cap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length
        done(size > limits.maxBytes ? tooLarge(shown, limits.maxBytes) : null, chunk)
      },
    })
    await pipeline(Readable.fromWeb(response.body as never), cap, createWriteStream(file), {
      signal: limit.signal,
    })
  } catch (error) {
    await rm(file, { force: true })
    if (limits.signal.aborted) throw limits.signal.reason
    if (limit.expired)
      throw errors.AUDIO_URL_FAILED(`${shown}: no complete reply within ${limits.timeoutMs} ms.`)
    if (error instanceof OutboundFailure) throw errors.AUDIO_URL_FAILED(`${shown}: ${error.message}.`)
    if (isDictumError(error)) throw error
    throw errors.AUDIO_URL_FAILED(`${shown}: ${(error as Error).message}.`)
  } finally {
    limit.clear()
  }
}

function tooLarge(shown: string, maxBytes: number) {
  return errors.AUDIO_URL_REFUSED(`${shown} is larger than jobs.maxUrlBytes (${maxBytes} bytes).`)
}
