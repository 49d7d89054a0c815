/**
 * Any server speaking the OpenAI chat completions API (`POST {baseUrl}/chat/completions`): OpenAI, Groq,
 * OpenRouter, LM Studio, llama.cpp server, vLLM, Ollama's /v1 and the like.
 */
import { type Static, Type } from '@sinclair/typebox'
import { type ChatPrompt, chatMessages, defineProvider, vendorMessage } from '../../sdk/plugin.ts'
import { ChatProviderInstance, type ChatReply, requireString } from '../common/chat-instance.ts'
import { postJson } from '../common/http.ts'
import {
  apiKeyOptions,
  baseUrlOption,
  headersOption,
  isLoopbackUrl,
  joinUrl,
  modelOption,
  promptOption,
  resolveApiKey,
  secretsOf,
  temperatureOption,
  timeoutMsOption,
} from '../common/options.ts'

const ID = 'openai-compatible'

const optionsSchema = Type.Object(
  {
    baseUrl: baseUrlOption('https://api.openai.com/v1', 'API root; /chat/completions is appended.'),
    ...apiKeyOptions('OPENAI_API_KEY'),
    model: modelOption('gpt-4o-mini'),
    temperature: temperatureOption(0),
    maxTokens: Type.Optional(Type.Integer({ minimum: 1, description: 'Sent as max_tokens when set.' })),
    timeoutMs: timeoutMsOption(30_000),
    prompt: promptOption,
    headers: headersOption,
  },
  { additionalProperties: false },
)

export type OpenAiCompatibleOptions = Static<typeof optionsSchema>

export default defineProvider({
  id: ID,
  displayName: 'OpenAI-compatible',
  description: 'OpenAI, Groq, OpenRouter, LM Studio, llama.cpp server or any /chat/completions API.',
  optionsSchema,
  capabilities: (options) => ({ local: isLoopbackUrl(options.baseUrl), usesPrompt: true }),
  secretOptions: ['apiKey'],
  defaultModel: (options) => options.model,
  create: ({ options }) => {
    const apiKey = resolveApiKey(options)
    return new ChatProviderInstance({
      provider: ID,
      model: options.model,
      prompt: options.prompt,
      send: (prompt, signal) => send(options, apiKey, prompt, signal),
    })
  },
})

async function send(
  options: OpenAiCompatibleOptions,
  apiKey: string | undefined,
  prompt: ChatPrompt,
  signal: AbortSignal,
): Promise<ChatReply> {
  const body: Record<string, unknown> = {
    model: options.model,
    messages: chatMessages(prompt),
    stream: false,
  }
  if (options.temperature !== null) body.temperature = options.temperature
  if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens
  const reply = await postJson({
    provider: ID,
    url: joinUrl(options.baseUrl, '/chat/completions'),
    headers: { ...options.headers, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
    body,
    timeoutMs: options.timeoutMs,
    signal,
    secrets: secretsOf(apiKey, options.headers),
    authHint: apiKey
      ? 'check the API key'
      : `no API key was sent: set apiKey or the ${options.apiKeyEnv} environment variable`,
    unreachableHint: 'check baseUrl and that the server is running',
  })
  return parseReply(reply)
}

interface Completion {
  model?: unknown
  error?: unknown
  choices?: Array<{ finish_reason?: unknown; message?: { content?: unknown; refusal?: unknown } }>
}

function parseReply(reply: unknown): ChatReply {
  const json = (reply ?? {}) as Completion
  const choice = Array.isArray(json.choices) ? json.choices[0] : undefined
  if (!choice && json.error) {
    // OpenRouter and some proxies report upstream failures inside a 200 reply.
    const detail = vendorMessage(JSON.stringify({ error: json.error })) || 'unknown error'
    throw new Error(`${ID}: the API returned an error: ${detail}`)
  }
  const message = choice?.message
  if (typeof message?.refusal === 'string' && message.refusal && !message.content) {
    throw new Error(`${ID}: the model refused: ${vendorMessage(message.refusal)}`)
  }
  const text = requireString(ID, contentText(message?.content), 'choices[0].message.content')
  if (choice?.finish_reason === 'length') {
    throw new Error(
      `${ID}: the reply was cut off at the token limit (finish_reason "length"; raise maxTokens)`,
    )
  }
  return { text, model: json.model }
}

/** Content is a string, or (some servers) an array of `{type: 'text', text}` parts. */
function contentText(content: unknown): unknown {
  if (!Array.isArray(content)) return content
  const parts = content.filter((p) => p && typeof p.text === 'string').map((p) => p.text as string)
  return parts.length > 0 ? parts.join('') : undefined
}
