/** Anthropic's Messages API (`POST {baseUrl}/v1/messages`). Needs an API key. */
import { type Static, Type } from '@sinclair/typebox'
import { type ChatPrompt, defineProvider } from '../../sdk/plugin.ts'
import { ChatProviderInstance, type ChatReply } from '../common/chat-instance.ts'
import { postJson } from '../common/http.ts'
import {
  apiKeyOptions,
  baseUrlOption,
  headersOption,
  joinUrl,
  modelOption,
  promptOption,
  resolveApiKey,
  secretsOf,
  temperatureOption,
  timeoutMsOption,
} from '../common/options.ts'

const ID = 'anthropic'
export const ANTHROPIC_VERSION = '2023-06-01'

const optionsSchema = Type.Object(
  {
    baseUrl: baseUrlOption('https://api.anthropic.com', 'API root; /v1/messages is appended.'),
    ...apiKeyOptions('ANTHROPIC_API_KEY'),
    model: modelOption('claude-haiku-4-5'),
    maxTokens: Type.Integer({
      default: 4096,
      minimum: 1,
      description: 'Sent as max_tokens (required by the API).',
    }),
    temperature: temperatureOption(0),
    timeoutMs: timeoutMsOption(30_000),
    prompt: promptOption,
    headers: headersOption,
  },
  { additionalProperties: false },
)

export type AnthropicOptions = Static<typeof optionsSchema>

export default defineProvider({
  id: ID,
  displayName: 'Anthropic',
  description: 'Claude models through the Anthropic Messages API.',
  optionsSchema,
  capabilities: () => ({ local: false, usesPrompt: true }),
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
  options: AnthropicOptions,
  apiKey: string | undefined,
  prompt: ChatPrompt,
  signal: AbortSignal,
): Promise<ChatReply> {
  if (!apiKey) {
    throw new Error(`${ID}: no API key: set apiKey or the ${options.apiKeyEnv} environment variable`)
  }
  const body: Record<string, unknown> = {
    model: options.model,
    max_tokens: options.maxTokens,
    messages: [{ role: 'user', content: prompt.user }],
  }
  if (prompt.system) body.system = prompt.system
  if (options.temperature !== null) body.temperature = options.temperature
  const reply = await postJson({
    provider: ID,
    url: joinUrl(options.baseUrl, '/v1/messages'),
    headers: { ...options.headers, 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION },
    body,
    timeoutMs: options.timeoutMs,
    signal,
    secrets: secretsOf(apiKey, options.headers),
    authHint: 'check the API key',
    unreachableHint: 'check the network and baseUrl',
  })
  return parseReply(reply)
}

interface Message {
  model?: unknown
  stop_reason?: unknown
  content?: Array<{ type?: unknown; text?: unknown }>
}

function parseReply(reply: unknown): ChatReply {
  const json = (reply ?? {}) as Message
  if (!Array.isArray(json.content)) throw new Error(`${ID}: malformed reply: missing content`)
  const texts = json.content.filter((block) => block?.type === 'text' && typeof block.text === 'string')
  if (json.stop_reason === 'refusal') throw new Error(`${ID}: the model refused to process the text`)
  if (texts.length === 0) throw new Error(`${ID}: malformed reply: no text block in content`)
  if (json.stop_reason === 'max_tokens') {
    throw new Error(`${ID}: the reply was cut off at max_tokens (raise maxTokens)`)
  }
  return { text: texts.map((block) => block.text as string).join(''), model: json.model }
}
