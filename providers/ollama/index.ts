/**
 * Ollama through its native chat API (`POST /api/chat`, `stream: false`). Runs on this machine by default;
 * the model must have been pulled (`ollama pull llama3.2`).
 */
import { type Static, Type } from '@sinclair/typebox'
import { type ChatPrompt, chatMessages, defineProvider } from '../../sdk/plugin.ts'
import { ChatProviderInstance, type ChatReply, requireString } from '../common/chat-instance.ts'
import { postJson } from '../common/http.ts'
import {
  baseUrlOption,
  headersOption,
  isLoopbackUrl,
  joinUrl,
  modelOption,
  promptOption,
  secretsOf,
  temperatureOption,
  timeoutMsOption,
} from '../common/options.ts'

const ID = 'ollama'

const optionsSchema = Type.Object(
  {
    baseUrl: baseUrlOption('http://localhost:11434', 'Where Ollama listens.'),
    model: modelOption('llama3.2'),
    temperature: temperatureOption(0),
    timeoutMs: timeoutMsOption(60_000),
    prompt: promptOption,
    keepAlive: Type.Optional(
      Type.Union([Type.String({ minLength: 1 }), Type.Number()], {
        description:
          'How long Ollama keeps the model loaded after a request ("5m", "1h", -1 forever, 0 unload).',
      }),
    ),
    headers: headersOption,
  },
  { additionalProperties: false },
)

export type OllamaOptions = Static<typeof optionsSchema>

export default defineProvider({
  id: ID,
  displayName: 'Ollama',
  description: 'A local model served by Ollama (native /api/chat).',
  optionsSchema,
  capabilities: (options) => ({ local: isLoopbackUrl(options.baseUrl), usesPrompt: true }),
  defaultModel: (options) => options.model,
  create: ({ options }) =>
    new ChatProviderInstance({
      provider: ID,
      model: options.model,
      prompt: options.prompt,
      send: (prompt, signal) => send(options, prompt, signal),
    }),
})

async function send(options: OllamaOptions, prompt: ChatPrompt, signal: AbortSignal): Promise<ChatReply> {
  const body: Record<string, unknown> = {
    model: options.model,
    messages: chatMessages(prompt),
    stream: false,
  }
  if (options.temperature !== null) body.options = { temperature: options.temperature }
  if (options.keepAlive !== undefined) body.keep_alive = options.keepAlive
  const reply = await postJson({
    provider: ID,
    url: joinUrl(options.baseUrl, '/api/chat'),
    headers: options.headers,
    body,
    timeoutMs: options.timeoutMs,
    signal,
    secrets: secretsOf(undefined, options.headers),
    unreachableHint: 'is Ollama running? Start it with `ollama serve`',
  })
  return parseReply(reply)
}

function parseReply(reply: unknown): ChatReply {
  const json = (reply ?? {}) as { model?: unknown; message?: { content?: unknown }; done_reason?: unknown }
  const text = requireString(ID, json.message?.content, 'message.content')
  if (json.done_reason === 'length') {
    throw new Error(`${ID}: the reply was cut off at the model's output limit (done_reason "length")`)
  }
  return { text, model: json.model }
}
