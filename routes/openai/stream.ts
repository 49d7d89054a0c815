/**
 * `stream=true` on `POST /v1/audio/transcriptions`: the transcript as OpenAI streams it, server-sent events
 * `data: {"type":"transcript.text.delta","delta":"…"}` while the pieces of the audio are transcribed, then
 * `data: {"type":"transcript.text.done","text":"…"}`. The deltas concatenate to the done text, which is the
 * text the same request answers without `stream`.
 *
 * The response starts with the first delta (or the done event of a transcript without one): an error before
 * it (undecodable audio, an engine that cannot load) is an ordinary error response with its status; an error
 * after it is an `error` event in OpenAI's error shape (`{"type":"error","error":{message,type,param,code}}`,
 * which OpenAI's clients raise as an APIError), and the stream ends.
 */
import { PassThrough } from 'node:stream'
import type { FastifyReply } from 'fastify'
import type { DictumError } from '../../errors/catalogue.ts'
import { openAiErrorBody } from './errors.ts'

export class TranscriptEventStream {
  readonly #reply: FastifyReply
  #body: PassThrough | null = null

  constructor(reply: FastifyReply) {
    this.#reply = reply
  }

  /** True once the response has started: errors can only be events from then on. */
  get started(): boolean {
    return this.#body !== null
  }

  delta(delta: string): void {
    if (delta !== '') this.#send({ type: 'transcript.text.delta', delta })
  }

  /** The last event: the text, and `languages` / `logprobs` as the json response has them. */
  done(fields: { text: string } & Record<string, unknown>): void {
    this.#send({ type: 'transcript.text.done', ...fields })
    this.#body?.end()
  }

  fail(error: DictumError): void {
    this.#send({ type: 'error', ...openAiErrorBody(error) })
    this.#body?.end()
  }

  #send(event: Record<string, unknown>): void {
    if (this.#body === null) {
      this.#body = new PassThrough()
      this.#reply
        .code(200)
        .type('text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache')
        .send(this.#body)
    }
    // A client that went away has aborted the transcription; nothing more is written to its socket.
    if (this.#reply.raw.destroyed) return
    this.#body.write(`data: ${JSON.stringify(event)}\n\n`)
  }
}
