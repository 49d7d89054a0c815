import {
  type EngineContext,
  type EngineInstance,
  type EngineTranscribeRequest,
  type EngineTranscribeResult,
  encodeWav16,
  errors,
  sleep,
} from '../../sdk/plugin.ts'
import { malformedReply, postTranscription, RemoteFailure, type Upload } from './client.ts'
import {
  keyEnvName,
  type RemoteOptions,
  resolveApiKey,
  responseFormatOf,
  sendsKeywords,
  sendsLanguages,
  serverName,
  transcriptionsUrl,
} from './options.ts'
import { toEngineResult } from './result.ts'
import { backoffMs } from './retry.ts'

type Format = 'verbose_json' | 'json'

/**
 * A remote engine instance: nothing to load; each piece of audio is uploaded as a WAV file. Failed attempts
 * are retried (429, 5xx, connection failures) with exponential backoff and jitter, honouring Retry-After.
 * close() aborts every upload in flight.
 */
export class RemoteEngine implements EngineInstance {
  readonly #context: EngineContext<RemoteOptions>
  readonly #closer = new AbortController()
  #format: Format

  constructor(context: EngineContext<RemoteOptions>) {
    this.#context = context
    this.#format = responseFormatOf(context.options)
  }

  async load(): Promise<void> {
    if (this.#closer.signal.aborted) throw errors.ENGINE_UNAVAILABLE('remote: the engine was closed.')
  }

  async transcribe(request: EngineTranscribeRequest, signal?: AbortSignal): Promise<EngineTranscribeResult> {
    signal?.throwIfAborted()
    if (request.samples.length === 0) return { text: '', confidence: null, segments: [], words: [] }
    const combined = signal ? AbortSignal.any([signal, this.#closer.signal]) : this.#closer.signal
    const wav = encodeWav16(request.samples)
    for (let attempt = 0; ; attempt++) {
      const upload = this.#upload(wav, request)
      try {
        const result = toEngineResult(await postTranscription(upload, combined))
        if (!result) throw malformedReply(upload, 'JSON without a transcript (no "text" string)')
        return result
      } catch (error) {
        if (!(error instanceof RemoteFailure)) throw error
        if (error.formatRejected && this.#format === 'verbose_json') {
          this.#context.logger.warn({ server: upload.server }, 'remote: verbose_json refused, using json')
          this.#format = 'json'
          continue
        }
        const wait = this.#retryWait(error, attempt)
        if (wait === null) throw error.error
        this.#context.logger.warn(
          { server: upload.server, attempt: attempt + 1, waitMs: wait, error: error.message },
          'remote transcription failed: retrying',
        )
        await sleep(wait, combined)
      }
    }
  }

  async close(): Promise<void> {
    if (!this.#closer.signal.aborted) this.#closer.abort(new Error('the remote engine was closed'))
  }

  /** How long to wait before the next attempt, or null to give up. */
  #retryWait(failure: RemoteFailure, attempt: number): number | null {
    const { retries, retryDelayMs, maxRetryAfterMs } = this.#context.options
    if (!failure.retryable || attempt >= retries) return null
    if (failure.retryAfterMs !== null)
      return failure.retryAfterMs <= maxRetryAfterMs ? failure.retryAfterMs : null
    return backoffMs(attempt, retryDelayMs)
  }

  #upload(wav: Buffer, request: EngineTranscribeRequest): Upload {
    const { options } = this.#context
    const envName = keyEnvName(options)
    return {
      url: transcriptionsUrl(options, request.task),
      server: serverName(options),
      apiKey: resolveApiKey(options),
      keyHint: `speech.engines.remote.apiKey${envName ? ` or ${envName}` : ''}`,
      form: this.#form(wav, request),
      timeoutMs: options.timeoutMs,
    }
  }

  #form(wav: Buffer, request: EngineTranscribeRequest): FormData {
    const { options } = this.#context
    const form = new FormData()
    form.append('file', new Blob([wav], { type: 'audio/wav' }), 'audio.wav')
    form.append('model', options.model)
    form.append('response_format', this.#format)
    const language = request.language ?? options.language
    const prompt = request.prompt ?? options.prompt
    if (request.task === 'translate') {
      // OpenAI's translations take the file, model, prompt, format and temperature only.
      if (prompt) form.append('prompt', prompt)
      if (options.temperature !== undefined) form.append('temperature', String(options.temperature))
      return form
    }
    // OpenAI refuses language and languages together: the set when the model takes it, else the one.
    if (request.languages && request.languages.length > 0 && sendsLanguages(options)) {
      for (const code of request.languages) form.append('languages[]', code)
    } else if (language) form.append('language', language)
    if (prompt) form.append('prompt', prompt)
    if (sendsKeywords(options)) {
      for (const word of request.customWords) form.append('keywords[]', word.text)
    }
    if (options.temperature !== undefined) form.append('temperature', String(options.temperature))
    if (this.#format === 'verbose_json') {
      form.append('timestamp_granularities[]', 'segment')
      if (options.wordTimestamps) form.append('timestamp_granularities[]', 'word')
    }
    return form
  }
}
