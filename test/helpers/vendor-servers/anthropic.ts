/**
 * A mock Anthropic Messages API: `POST /v1/messages`, `x-api-key` and `anthropic-version` headers, errors
 * shaped `{"type": "error", "error": {"type", "message"}}`.
 */
import type { Test } from 'tap'
import {
  fakeModel,
  lastUserMessage,
  type MockReply,
  type MockServer,
  startMockServer,
} from './mock-server.ts'

export interface AnthropicMockOptions {
  apiKey: string
  models?: string[]
}

export function startAnthropicServer(t: Test, options: AnthropicMockOptions): Promise<MockServer> {
  const models = new Set(options.models ?? ['claude-haiku-4-5'])
  return startMockServer(t, (request): MockReply => {
    if (request.method !== 'POST' || request.path !== '/v1/messages') {
      return anthropicError(404, 'not_found_error', 'Not Found')
    }
    if (request.headers['x-api-key'] !== options.apiKey) {
      return anthropicError(401, 'authentication_error', 'invalid x-api-key')
    }
    if (!request.headers['anthropic-version']) {
      return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required')
    }
    const body = request.body as { model?: unknown; max_tokens?: unknown } | undefined
    if (!body)
      return anthropicError(
        400,
        'invalid_request_error',
        'There was an issue with the format of your request',
      )
    if (typeof body.max_tokens !== 'number')
      return anthropicError(400, 'invalid_request_error', 'max_tokens: Field required')
    if (typeof body.model !== 'string' || !models.has(body.model)) {
      return anthropicError(404, 'not_found_error', `model: ${String(body.model)}`)
    }
    return { json: anthropicReply(fakeModel(lastUserMessage(body)), body.model) }
  })
}

export function anthropicReply(text: string, model = 'claude-haiku-4-5', stopReason = 'end_turn'): unknown {
  return {
    id: 'msg_mock',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 3 },
  }
}

export function anthropicError(status: number, type: string, message: string): MockReply {
  return { status, json: { type: 'error', error: { type, message } } }
}
