import t from 'tap'
import ollama from '../../providers/ollama/index.ts'
import { DEFAULT_PROMPT } from '../../sdk/prompt.ts'
import { runProviderContract } from '../../sdk/testing/provider-suite.ts'
import { startOllamaServer } from '../helpers/vendor-servers/ollama.ts'
import { deadUrl, failure, makeProvider, run } from '../helpers/vendor-servers/provider-harness.ts'

const server = await startOllamaServer(t, { models: ['llama3.2', 'qwen2.5:3b'] })
const silent = await startOllamaServer(t)
silent.override(() => ({ hang: true }))

await runProviderContract(t, {
  definition: ollama,
  options: { baseUrl: server.url },
  text: 'um hello world',
  expectText: 'UM HELLO WORLD',
  hangingOptions: { baseUrl: silent.url },
  // The mock model answers the user message in capitals: the template's words show it reached the model.
  expectPromptedText: /^FIX THE PUNCTUATION OF THIS NOTE, REPLY WITH THE TEXT ONLY: /,
})

// Every test starts with the mock server's default answers. In its test group this also runs before the
// other files' tests: harmless, it only resets this file's own server.
t.beforeEach(() => server.override(null))

t.test('sends a native chat request: system instructions, tagged transcript, no streaming', async (t) => {
  const instance = await makeProvider(t, ollama, { baseUrl: server.url })
  const before = server.requests.length
  const result = await run(instance, { text: 'what time is it' })
  const request = server.requests[before]!
  t.equal(request.method, 'POST')
  t.equal(request.path, '/api/chat')
  t.match(request.headers['content-type'], /application\/json/)
  t.same(request.body, {
    model: 'llama3.2',
    stream: false,
    options: { temperature: 0 },
    messages: [
      { role: 'system', content: DEFAULT_PROMPT },
      { role: 'user', content: '<transcript>\nwhat time is it\n</transcript>' },
    ],
  })
  t.same(result, { text: 'WHAT TIME IS IT', model: 'llama3.2' })
})

t.test('model, temperature, keepAlive, headers and a trailing slash in baseUrl', async (t) => {
  const instance = await makeProvider(t, ollama, {
    baseUrl: `${server.url}/`,
    model: 'qwen2.5:3b',
    temperature: 0.3,
    keepAlive: '10m',
    headers: { 'x-team': 'blue' },
  })
  const before = server.requests.length
  const result = await run(instance)
  const request = server.requests[before]!
  t.equal(request.path, '/api/chat')
  t.equal(request.headers['x-team'], 'blue')
  t.match(request.body, { model: 'qwen2.5:3b', options: { temperature: 0.3 }, keep_alive: '10m' })
  t.equal(result.model, 'qwen2.5:3b')
})

t.test('temperature null leaves the model default (no options object)', async (t) => {
  const instance = await makeProvider(t, ollama, { baseUrl: server.url, temperature: null, keepAlive: -1 })
  const before = server.requests.length
  await run(instance)
  const body = server.requests[before]!.body as Record<string, unknown>
  t.notOk('options' in body)
  t.equal(body.keep_alive, -1)
})

t.test('prompts: request prompt beats the option; a template is one user message', async (t) => {
  const instance = await makeProvider(t, ollama, { baseUrl: server.url, prompt: 'Configured instructions.' })
  let before = server.requests.length
  await run(instance, { text: 'hi' })
  t.same((server.requests[before]!.body as { messages: unknown }).messages, [
    { role: 'system', content: 'Configured instructions.' },
    { role: 'user', content: '<transcript>\nhi\n</transcript>' },
  ])
  before = server.requests.length
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder users write
  const result = await run(instance, { text: 'hi', prompt: 'Make it formal: ${transcript}' })
  t.same((server.requests[before]!.body as { messages: unknown }).messages, [
    { role: 'user', content: 'Make it formal: hi' },
  ])
  t.equal(result.text, 'MAKE IT FORMAL: HI', 'the fake model saw the rendered template')
})

t.test('an unknown model reports Ollama’s own message', async (t) => {
  const instance = await makeProvider(t, ollama, { baseUrl: server.url, model: 'mistral' })
  const error = await failure(t, run(instance))
  t.equal(error.message, 'ollama: HTTP 404: model "mistral" not found, try pulling it first')
})

t.test('HTTP errors name the provider and the status', async (t) => {
  const instance = await makeProvider(t, ollama, { baseUrl: server.url })
  server.override(() => ({ status: 500, json: { error: 'llama runner process has terminated' } }))
  t.equal((await failure(t, run(instance))).message, 'ollama: HTTP 500: llama runner process has terminated')
  server.override(() => ({ status: 429, json: { error: 'server busy, please try again' } }))
  t.match(
    (await failure(t, run(instance))).message,
    /^ollama: HTTP 429: rate limited by the API: server busy/,
  )
  server.override(() => ({ status: 502, body: '<html><body>Bad gateway</body></html>' }))
  t.equal((await failure(t, run(instance))).message, 'ollama: HTTP 502: server error')
})

t.test('a wrong baseUrl path is a 404 that says where it looked', async (t) => {
  const instance = await makeProvider(t, ollama, { baseUrl: `${server.url}/nothing-here` })
  const error = await failure(t, run(instance))
  t.match(error.message, /^ollama: HTTP 404: 404 page not found$/)
})

t.test('nothing listening: says so and how to start Ollama', async (t) => {
  const instance = await makeProvider(t, ollama, { baseUrl: await deadUrl() })
  const error = await failure(t, run(instance))
  t.match(error.message, /^ollama: could not reach http:\/\/127\.0\.0\.1:\d+\/api\/chat: ECONNREFUSED/)
  t.match(error.message, /ollama serve/)
})

t.test('a server that never answers times out with a TimeoutError', async (t) => {
  const instance = await makeProvider(t, ollama, { baseUrl: silent.url, timeoutMs: 150 })
  const error = await failure(t, run(instance))
  t.equal(error.name, 'TimeoutError')
  t.equal(error.message, 'ollama: no reply within 150 ms (option timeoutMs)')
})

t.test('malformed replies say so', async (t) => {
  const instance = await makeProvider(t, ollama, { baseUrl: server.url })
  server.override(() => ({ body: 'not json at all' }))
  t.equal(
    (await failure(t, run(instance))).message,
    'ollama: malformed reply: the server sent a body that is not JSON',
  )
  server.override(() => ({ body: '' }))
  t.equal((await failure(t, run(instance))).message, 'ollama: malformed reply: the server sent an empty body')
  server.override(() => ({ json: { model: 'llama3.2', done: true } }))
  t.equal((await failure(t, run(instance))).message, 'ollama: malformed reply: missing message.content')
  server.override(() => ({ json: { model: 'llama3.2', message: { content: '   ' }, done: true } }))
  t.equal((await failure(t, run(instance))).message, 'ollama: the model returned empty text')
  server.override(() => ({ json: { message: { content: 'Hello wor' }, done: true, done_reason: 'length' } }))
  t.match((await failure(t, run(instance))).message, /^ollama: the reply was cut off/)
})

t.test(
  'wrappers around the answer are removed; the configured model is reported when the reply has none',
  async (t) => {
    const instance = await makeProvider(t, ollama, { baseUrl: server.url })
    server.override(() => ({
      json: {
        message: { role: 'assistant', content: 'Here is the cleaned text:\n\n"Hello, world."' },
        done: true,
      },
    }))
    t.same(await run(instance), { text: 'Hello, world.', model: 'llama3.2' })
  },
)

t.test('extra header values (a proxy token) never appear in errors', async (t) => {
  const token = 'proxy-token-0123456789'
  const instance = await makeProvider(t, ollama, {
    baseUrl: server.url,
    headers: { authorization: `Bearer ${token}` },
  })
  server.override((request) => ({
    status: 401,
    json: { error: `token ${request.headers.authorization} rejected` },
  }))
  const error = await failure(t, run(instance))
  t.match(error.message, /^ollama: HTTP 401: authentication failed/)
  t.notOk(error.message.includes(token))
})

t.test('close aborts a request in flight and refuses new ones', async (t) => {
  const instance = await makeProvider(t, ollama, { baseUrl: silent.url })
  const pending = failure(t, run(instance))
  await new Promise((resolve) => setTimeout(resolve, 20))
  await instance.close?.()
  t.equal((await pending).name, 'AbortError')
  t.match((await failure(t, run(instance))).message, /closed/)
})

t.test('capabilities: local only when baseUrl is this machine', async (t) => {
  const remote = { ...ollama.optionsSchema, baseUrl: 'http://gpu-box.lan:11434' }
  t.same(ollama.capabilities({ baseUrl: 'http://localhost:11434' } as never), {
    local: true,
    usesPrompt: true,
  })
  t.same(ollama.capabilities({ baseUrl: 'http://[::1]:11434' } as never), { local: true, usesPrompt: true })
  t.same(ollama.capabilities({ baseUrl: remote.baseUrl } as never), { local: false, usesPrompt: true })
  t.equal(ollama.defaultModel?.({ model: 'llama3.2' } as never), 'llama3.2')
})
