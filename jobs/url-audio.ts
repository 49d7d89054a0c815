/**
 * A job's audio given by URL: fetched when the job runs (by whichever process runs it) into a spool file.
 * Only http and https, only hosts `jobs.urlAllow`/`jobs.urlDeny` let through (url-policy.ts, checked at each
 * redirect on the addresses actually connected to), at most `jobs.maxUrlBytes`, within `jobs.urlTimeoutMs`,
 * and no slower than `jobs.urlMinBytesPerSecond` over each `jobs.urlRateWindowMs`.
 *
 * A reply the server refuses (4xx), one too large, a host or a redirect not allowed fail the job at once; a
 * network failure, a time-out, a fetch too slow or a 5xx may pass, so the job is tried again.
 *
 * node:http rather than fetch: fetch cannot be told which addresses it may connect to (its `lookup` is not
 * reachable without undici's own Agent), and checking a name before fetch lets a name that resolves
 * differently the second time through.
 */

import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { createRequire } from 'node:module'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { errors, isDictumError } from '../errors/catalogue.ts'
import { redact, redactUrl } from '../lib/secrets.ts'
import { timeLimit } from '../lib/timeout.ts'
import { jobsErrors } from './errors.ts'
import type { UrlPolicy } from './url-policy.ts'

/** Redirects followed before the URL is refused. */
const MAX_REDIRECTS = 5

/** The URL if it is one a job may fetch, else the 400 that says why. */
export function checkAudioUrl(value: string, policy: UrlPolicy): URL {
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
  policy.checkUrl(url)
  return url
}

export interface DownloadLimits {
  maxBytes: number
  timeoutMs: number
  /** Fewest bytes per second over each window (0: no minimum). */
  minBytesPerSecond: number
  rateWindowMs: number
  policy: UrlPolicy
  signal: AbortSignal
}

/** Writes the body of `url` to `file`; on any failure the partial file is removed. */
export async function downloadAudio(url: string, file: string, limits: DownloadLimits): Promise<void> {
  const shown = redactUrl(url)
  const limit = timeLimit(limits.timeoutMs, { signal: limits.signal })
  const meter = rateMeter(limits)
  const signal = AbortSignal.any([limit.signal, meter.signal])
  try {
    const response = await openFollowingRedirects(new URL(url), limits.policy, signal)
    meter.count(0)
    const status = response.statusCode ?? 0
    if (status < 200 || status > 299) {
      response.destroy()
      const detail = `${shown} answered ${status}.`
      throw status >= 500 ? jobsErrors.AUDIO_URL_FAILED(detail) : jobsErrors.AUDIO_URL_REFUSED(detail)
    }
    const declared = Number(response.headers['content-length'])
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      response.destroy()
      throw tooLarge(shown, limits.maxBytes)
    }
    let size = 0
    const cap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length
        meter.count(chunk.length)
        done(size > limits.maxBytes ? tooLarge(shown, limits.maxBytes) : null, chunk)
      },
    })
    await pipeline(response, cap, createWriteStream(file), { signal })
  } catch (error) {
    await rm(file, { force: true })
    if (limits.signal.aborted) throw limits.signal.reason
    if (meter.tooSlow) {
      throw jobsErrors.AUDIO_URL_FAILED(
        `${shown} sent less than jobs.urlMinBytesPerSecond (${limits.minBytesPerSecond} bytes per second) ` +
          `over ${limits.rateWindowMs} ms.`,
      )
    }
    if (limit.expired)
      throw jobsErrors.AUDIO_URL_FAILED(`${shown}: no complete reply within ${limits.timeoutMs} ms.`)
    if (isDictumError(error)) throw error
    const code = (error as { code?: unknown }).code
    const why = typeof code === 'string' ? code : (error as Error).message
    throw jobsErrors.AUDIO_URL_FAILED(`${shown}: ${redact(why)}.`)
  } finally {
    meter.stop()
    limit.clear()
  }
}

/**
 * Sends GET requests from `url` on through at most {@link MAX_REDIRECTS} redirects, each target checked by
 * scheme and by `policy` before it is connected to; the response that is not a redirect is returned.
 */
async function openFollowingRedirects(url: URL, policy: UrlPolicy, signal: AbortSignal) {
  let target = url
  for (let hop = 0; ; hop++) {
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw jobsErrors.AUDIO_URL_REFUSED(
        `${redactUrl(url.href)} redirects to a ${target.protocol.replace(/:$/, '')} URL (only http and https).`,
      )
    }
    policy.checkUrl(target)
    const response = await get(target, policy, signal)
    const location = response.headers.location
    const status = response.statusCode ?? 0
    if (status < 300 || status > 399 || !location) return response
    response.destroy()
    if (hop === MAX_REDIRECTS)
      throw jobsErrors.AUDIO_URL_REFUSED(`${redactUrl(url.href)} redirects more than ${MAX_REDIRECTS} times.`)
    // Credentials go to the URL they were given with, never along a redirect.
    target = new URL(location, target)
  }
}

function get(url: URL, policy: UrlPolicy, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? https().request : httpRequest
    const request = send(url, { lookup: policy.lookupFor(url), signal }, resolve)
    request.once('error', reject)
    request.end()
  })
}

/**
 * Counts the bytes received; at the end of each window with fewer than the minimum, marks the fetch too slow
 * and aborts it. The first window, from the request on, is the grace period for the connection and headers.
 */
function rateMeter(limits: DownloadLimits) {
  const perWindow = (limits.minBytesPerSecond * limits.rateWindowMs) / 1000
  const controller = new AbortController()
  let received = 0
  const meter = {
    signal: controller.signal,
    tooSlow: false,
    count(bytes: number) {
      received += bytes
    },
    stop() {
      clearInterval(timer)
    },
  }
  const timer = setInterval(() => {
    if (received < perWindow) {
      meter.tooSlow = true
      clearInterval(timer)
      controller.abort(new Error('too slow'))
    }
    received = 0
  }, limits.rateWindowMs)
  timer.unref()
  if (perWindow === 0) clearInterval(timer)
  return meter
}

function tooLarge(shown: string, maxBytes: number) {
  return jobsErrors.AUDIO_URL_REFUSED(`${shown} is larger than jobs.maxUrlBytes (${maxBytes} bytes).`)
}

/** Node's HTTPS module (with TLS), loaded with the first https URL rather than with every start of the service. */
function https(): typeof import('node:https') {
  return createRequire(import.meta.url)('node:https')
}
