/** A mock Ollama: `POST /api/chat` with `stream: false`, its error shape `{"error": "..."}`. */
import type { Test } from 'tap'
import {
  fakeModel,
  lastUserMessage,
  type MockReply,
  type MockServer,
  startMockServer,
} from './mock-server.ts'

export interface OllamaMockOptions {
  /** Models that are "pulled"; others get Ollama's 404. */
  models?: string[]
}

export function startOllamaServer(t: Test, options: OllamaMockOptions = {}): Promise<MockServer> {
  const models = new Set(options.models ?? ['llama3.2'])
  return startMockServer(t, (request): MockReply => {
    if (request.method !== 'POST' || request.path !== '/api/chat') {
      return { status: 404, body: '404 page not found', headers: { 'content-type': 'text/plain' } }
    }
    const body = request.body as { model?: unknown; stream?: unknown } | undefined
    if (!body) return { status: 400, json: { error: 'invalid character looking for beginning of value' } }
    if (typeof body.model !== 'string' || body.model === '')
      return { status: 400, json: { error: 'model is required' } }
    if (!models.has(body.model)) {
      return { status: 404, json: { error: `model "${body.model}" not found, try pulling it first` } }
    }
    return { json: ollamaReply(fakeModel(lastUserMessage(body)), body.model) }
  })
}

export function ollamaReply(content: string, model = 'llama3.2', doneReason = 'stop'): unknown {
  return {
    model,
    created_at: new Date(0).toISOString(),
    message: { role: 'assistant', content },
    done_reason: doneReason,
    done: true,
    total_duration: 1000,
    eval_count: 3,
  }
}
