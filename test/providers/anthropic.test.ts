import t from 'tap'
import anthropic from '../../providers/anthropic/index.ts'
import { DEFAULT_PROMPT } from '../../sdk/prompt.ts'
import { runProviderContract } from '../../sdk/testing/provider-suite.ts'
import { anthropicError, anthropicReply, startAnthropicServer } from '../helpers/vendor-servers/anthropic.ts'
import { deadUrl, failure, makeProvider, run } from '../helpers/vendor-servers/provider-harness.ts'

const KEY = 'sk-ant-api03-test-0123456789abcdefghij'
const server = await startAnthropicServer(t, {
  apiKey: KEY,
  models: ['claude-haiku-4-5', 'claude-sonnet-4-5'],
})
const silent = await startAnthropicServer(t, { apiKey: KEY })
silent.override(() => ({ hang: true }))
const saved = process.env.ANTHROPIC_API_KEY
delete process.env.ANTHROPIC_API_KEY
t.teardown(() => {
  if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved
})

await runProviderContract(t, {
  definition: anthropic,
  options: { baseUrl: server.url, apiKey: KEY },
  text: 'hello world',
  expectText: 'HELLO WORLD',
  hangingOptions: { baseUrl: silent.url, apiKey: KEY },
  // The mock model answers the user message in capitals: the template's words show it reached the model.
  expectPromptedText: /^FIX THE PUNCTUATION OF THIS NOTE, REPLY WITH THE TEXT ONLY: /,
})

// Every test starts with the mock server's default answers. In its test group this also runs before the
// other files' tests: harmless, it only resets this file's own server.
t.beforeEach(() => server.override(null))

t.test('sends a Messages request: x-api-key, anthropic-version, system prompt, max_tokens', async (t) => {
  const instance = await makeProvider(t, anthropic, { baseUrl: server.url, apiKey: KEY })
  const before = server.requests.length
  const result = await run(instance, { text: 'what is the capital of France' })
  const request = server.requests[before]!
  t.equal(request.method, 'POST')
  t.equal(request.path, '/v1/messages')
  t.equal(request.headers['x-api-key'], KEY)
  t.equal(request.headers['anthropic-version'], '2023-06-01')
  t.notOk('authorization' in request.headers, 'no Bearer header')
  t.same(request.body, {
    model: 'claude-haiku-4-5',
    max_tokens: 4096,
    temperature: 0,
    system: DEFAULT_PROMPT,
    messages: [{ role: 'user', content: '<transcript>\nwhat is the capital of France\n</transcript>' }],
  })
  t.same(result, { text: 'WHAT IS THE CAPITAL OF FRANCE', model: 'claude-haiku-4-5' })
})

t.test('model, maxTokens, temperature; a template prompt has no system field', async (t) => {
  const instance = await makeProvider(t, anthropic, {
    baseUrl: `${server.url}/`,
    apiKey: KEY,
    model: 'claude-sonnet-4-5',
    maxTokens: 1000,
    temperature: null,
  })
  const before = server.requests.length
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder users write
  const result = await run(instance, { text: 'hi', prompt: 'Formal please: ${transcript}' })
  const body = server.requests[before]!.body as Record<string, unknown>
  t.equal(server.requests[before]!.path, '/v1/messages')
  t.match(body, { model: 'claude-sonnet-4-5', max_tokens: 1000 })
  t.notOk('temperature' in body)
  t.notOk('system' in body)
  t.same(body.messages, [{ role: 'user', content: 'Formal please: hi' }])
  t.equal(result.model, 'claude-sonnet-4-5')
})

t.test('the key comes from ANTHROPIC_API_KEY or the variable apiKeyEnv names', async (t) => {
  process.env.ANTHROPIC_API_KEY = KEY
  process.env.MY_CLAUDE_KEY = 'sk-ant-other-0123456789abcdef'
  t.teardown(() => {
    delete process.env.ANTHROPIC_API_KEY
    delete process.env.MY_CLAUDE_KEY
  })
  let before = server.requests.length
  await run(await makeProvider(t, anthropic, { baseUrl: server.url }))
  t.equal(server.requests[before]!.headers['x-api-key'], KEY)
  before = server.requests.length
  await failure(t, run(await makeProvider(t, anthropic, { baseUrl: server.url, apiKeyEnv: 'MY_CLAUDE_KEY' })))
  t.equal(server.requests[before]!.headers['x-api-key'], 'sk-ant-other-0123456789abcdef')
})

t.test('no key at all: fails before sending anything', async (t) => {
  const before = server.requests.length
  const error = await failure(t, run(await makeProvider(t, anthropic, { baseUrl: server.url })))
  t.equal(error.message, 'anthropic: no API key: set apiKey or the ANTHROPIC_API_KEY environment variable')
  t.equal(server.requests.length, before, 'no request was made')
})

t.test('a wrong key: authentication failed, and the key is not in the message', async (t) => {
  const wrong = 'sk-ant-wrong-0123456789abcdefgh'
  server.override((request) =>
    anthropicError(401, 'authentication_error', `invalid x-api-key ${String(request.headers['x-api-key'])}`),
  )
  const error = await failure(
    t,
    run(await makeProvider(t, anthropic, { baseUrl: server.url, apiKey: wrong })),
  )
  t.match(
    error.message,
    /^anthropic: HTTP 401: authentication failed \(check the API key\): invalid x-api-key/,
  )
  t.notOk(error.message.includes(wrong))
})

t.test('errors in Anthropic’s shape', async (t) => {
  const unknown = await makeProvider(t, anthropic, { baseUrl: server.url, apiKey: KEY, model: 'claude-9' })
  t.equal((await failure(t, run(unknown))).message, 'anthropic: HTTP 404: model: claude-9')
  const instance = await makeProvider(t, anthropic, { baseUrl: server.url, apiKey: KEY })
  server.override(() =>
    anthropicError(429, 'rate_limit_error', 'Number of request tokens has exceeded your rate limit.'),
  )
  t.equal(
    (await failure(t, run(instance))).message,
    'anthropic: HTTP 429: rate limited by the API: Number of request tokens has exceeded your rate limit.',
  )
  server.override(() => anthropicError(529, 'overloaded_error', 'Overloaded'))
  t.equal((await failure(t, run(instance))).message, 'anthropic: HTTP 529: Overloaded')
  server.override(() => anthropicError(500, 'api_error', 'Internal server error'))
  t.equal((await failure(t, run(instance))).message, 'anthropic: HTTP 500: Internal server error')
})

t.test('the mock rejects what the real API rejects (missing version header or max_tokens)', async (t) => {
  const response = await fetch(`${server.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-haiku-4-5', messages: [] }),
  })
  t.equal(response.status, 400, 'so the provider tests above prove the provider sends them')
})

t.test('timeouts and unreachable servers', async (t) => {
  const slow = await makeProvider(t, anthropic, { baseUrl: silent.url, apiKey: KEY, timeoutMs: 150 })
  const timeout = await failure(t, run(slow))
  t.equal(timeout.name, 'TimeoutError')
  t.equal(timeout.message, 'anthropic: no reply within 150 ms (option timeoutMs)')
  const gone = await makeProvider(t, anthropic, { baseUrl: await deadUrl(), apiKey: KEY })
  t.match(
    (await failure(t, run(gone))).message,
    /^anthropic: could not reach http:\/\/127\.0\.0\.1:\d+\/v1\/messages: ECONNREFUSED/,
  )
})

t.test('malformed and unusable replies', async (t) => {
  const instance = await makeProvider(t, anthropic, { baseUrl: server.url, apiKey: KEY })
  const cases: Array<[unknown, string]> = [
    [
      { body: 'upstream connect error' },
      'anthropic: malformed reply: the server sent a body that is not JSON',
    ],
    [{ json: { type: 'message', role: 'assistant' } }, 'anthropic: malformed reply: missing content'],
    [
      { json: { content: [{ type: 'tool_use', id: 'x', name: 'y', input: {} }] } },
      'anthropic: malformed reply: no text block in content',
    ],
    [
      { json: anthropicReply('Hello wo', 'claude-haiku-4-5', 'max_tokens') },
      'anthropic: the reply was cut off at max_tokens (raise maxTokens)',
    ],
    [{ json: { content: [], stop_reason: 'refusal' } }, 'anthropic: the model refused to process the text'],
    [{ json: anthropicReply('  ') }, 'anthropic: the model returned empty text'],
  ]
  for (const [reply, message] of cases) {
    server.override(() => reply as never)
    t.equal((await failure(t, run(instance))).message, message, message)
  }
})

t.test('several text blocks are joined', async (t) => {
  const instance = await makeProvider(t, anthropic, { baseUrl: server.url, apiKey: KEY })
  server.override(() => ({
    json: {
      model: 'claude-haiku-4-5-20251001',
      content: [
        { type: 'text', text: 'Hello, ' },
        { type: 'text', text: 'world.' },
      ],
    },
  }))
  t.same(await run(instance), { text: 'Hello, world.', model: 'claude-haiku-4-5-20251001' })
})

t.test('the API key never appears in any failure message', async (t) => {
  const instance = await makeProvider(t, anthropic, { baseUrl: server.url, apiKey: KEY })
  for (const status of [400, 401, 403, 404, 429, 500, 529]) {
    server.override((request) =>
      anthropicError(status, 'x', `key was ${String(request.headers['x-api-key'])}`),
    )
    const error = await failure(t, run(instance))
    t.notOk(error.message.includes(KEY), `HTTP ${status}: ${error.message}`)
  }
})

t.test('definition: secret option, not local', async (t) => {
  t.same(anthropic.secretOptions, ['apiKey'])
  t.same(anthropic.capabilities({} as never), { local: false, usesPrompt: true })
})
