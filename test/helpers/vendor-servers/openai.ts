/**
 * A mock OpenAI-compatible server: `POST /v1/chat/completions`, Bearer auth, errors shaped
 * `{"error": {"message", "type", "param", "code"}}`. Mount point `/v1`, so the provider's baseUrl is
 * `${server.url}/v1`.
 */
import type { Test } from 'tap'
import {
  fakeModel,
  lastUserMessage,
  type MockReply,
  type MockServer,
  startMockServer,
} from './mock-server.ts'

export interface OpenAiMockOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string
  models?: string[]
}

export function startOpenAiServer(t: Test, options: OpenAiMockOptions = {}): Promise<MockServer> {
  const models = new Set(options.models ?? ['gpt-4o-mini'])
  return startMockServer(t, (request): MockReply => {
    if (request.method !== 'POST' || request.path !== '/v1/chat/completions') {
      return openAiError(
        404,
        `Invalid URL (${request.method} ${request.path})`,
        'invalid_request_error',
        null,
      )
    }
    const auth = request.headers.authorization
    if (options.apiKey !== undefined && auth !== `Bearer ${options.apiKey}`) {
      // OpenAI echoes (part of) the key it was given; the provider must not pass it on.
      const given = auth?.replace(/^Bearer /, '') ?? ''
      const message = given
        ? `Incorrect API key provided: ${given}. You can find your API key at https://platform.openai.com/account/api-keys.`
        : "You didn't provide an API key."
      return openAiError(401, message, 'invalid_request_error', 'invalid_api_key')
    }
    const body = request.body as { model?: unknown } | undefined
    if (!body)
      return openAiError(
        400,
        'We could not parse the JSON body of your request.',
        'invalid_request_error',
        null,
      )
    if (typeof body.model !== 'string' || !models.has(body.model)) {
      const message = `The model '${String(body.model)}' does not exist or you do not have access to it.`
      return openAiError(404, message, 'invalid_request_error', 'model_not_found')
    }
    return { json: openAiReply(fakeModel(lastUserMessage(body)), body.model) }
  })
}

export function openAiReply(content: string | null, model = 'gpt-4o-mini', finishReason = 'stop'): unknown {
  return {
    id: 'chatcmpl-mock',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [
      { index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: finishReason },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
  }
}

export function openAiError(status: number, message: string, type: string, code: string | null): MockReply {
  return { status, json: { error: { message, type, param: null, code } } }
}
