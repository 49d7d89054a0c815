/**
 * The instance shared by the language-model providers: picks the prompt, splits it into chat messages, lets
 * the provider send them, cleans the reply, and aborts whatever is still in flight when it is closed.
 */
import {
  type ChatPrompt,
  chatPrompt,
  cleanReply,
  DEFAULT_PROMPT,
  type ProviderInstance,
  type ProviderProcessRequest,
  type ProviderProcessResult,
} from '../../sdk/plugin.ts'

export interface ChatReply {
  /** The model's raw answer. */
  text: string
  /** The model the server says answered, when it says. */
  model?: unknown
}

export interface ChatSender {
  /** Provider id, first word of every error message. */
  provider: string
  /** The configured model, reported when the server names none. */
  model: string
  /** The configured prompt (option `prompt`), used when the request brings none. */
  prompt?: string
  /** Sends one exchange to the vendor API. */
  send(prompt: ChatPrompt, signal: AbortSignal): Promise<ChatReply>
}

export class ChatProviderInstance implements ProviderInstance {
  readonly #sender: ChatSender
  readonly #inFlight = new Set<AbortController>()
  #closed = false

  constructor(sender: ChatSender) {
    this.#sender = sender
  }

  async process(request: ProviderProcessRequest, signal: AbortSignal): Promise<ProviderProcessResult> {
    const { provider } = this.#sender
    if (this.#closed) throw new Error(`${provider}: the provider has been closed`)
    const controller = new AbortController()
    const onAbort = () => controller.abort(signal.reason)
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
    this.#inFlight.add(controller)
    try {
      const prompt = request.prompt ?? this.#sender.prompt ?? DEFAULT_PROMPT
      const reply = await this.#sender.send(chatPrompt(prompt, request.text), controller.signal)
      const text = cleanReply(reply.text, request.text)
      if (text === '') throw new Error(`${provider}: the model returned empty text`)
      const model = typeof reply.model === 'string' && reply.model.trim() ? reply.model : this.#sender.model
      return { text, model }
    } finally {
      signal.removeEventListener('abort', onAbort)
      this.#inFlight.delete(controller)
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    for (const controller of this.#inFlight) controller.abort()
    this.#inFlight.clear()
  }
}

/** Reads a string at a path of a parsed reply, or throws "malformed reply: missing <path>". */
export function requireString(provider: string, value: unknown, path: string): string {
  if (typeof value !== 'string') throw new Error(`${provider}: malformed reply: missing ${path}`)
  return value
}
