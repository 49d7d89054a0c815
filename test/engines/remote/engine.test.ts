/**
 * The remote engine against small local HTTP servers: what it uploads, how it reads replies, retries
 * (429 with Retry-After, 5xx, connection failures), time limits, malformed replies, cancellation, and the
 * API key kept out of every error.
 */
import net from 'node:net'
import { Value } from '@sinclair/typebox/value'
import t, { type Test } from 'tap'
import remote from '../../../engines/remote/index.ts'
import type { RemoteOptions } from '../../../engines/remote/options.ts'
import { type DictumError, isDictumError } from '../../../errors/catalogue.ts'
import type { EngineInstance } from '../../../kernel/contracts/engine.ts'
import { type Reply, startTranscriptionServer, verboseReply } from './transcription-server.ts'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }
const samples = Float32Array.from({ length: 16000 }, (_, i) => 0.25 * Math.sin(i / 7))

function engine(t: Test, raw: Record<string, unknown>): EngineInstance {
  const options = Value.Default(remote.optionsSchema, structuredClone(raw)) as RemoteOptions
  const instance = remote.create({
    options,
    dataDir: '/nonexistent',
    modelsDir: '/nonexistent',
    logger: quiet,
  })
  t.teardown(() => (instance as EngineInstance).close())
  return instance as EngineInstance
}

async function failure(promise: Promise<unknown>): Promise<DictumError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  if (!isDictumError(error)) throw new Error(`expected a DictumError, got ${String(error)}`)
  return error
}

t.test("OpenAI's current fields go upstream when the model takes them", async (t) => {
  const server = await startTranscriptionServer(t, () => ({ json: { text: 'hello' } }))
  const words = [{ text: 'Kubernetes', weight: null, aliases: ['cube'] }]
  const request = { samples, customWords: words, language: 'de', languages: ['de', 'fr'], prompt: 'p' }
  const guided = engine(t, { baseUrl: server.baseUrl, model: 'gpt-transcribe' })
  t.equal(
    remote.capabilities(Value.Default(remote.optionsSchema, { model: 'gpt-transcribe' }) as RemoteOptions)
      .customWords,
    true,
  )
  await guided.transcribe(request)
  t.same(
    server.uploads[0]!.fields,
    {
      model: ['gpt-transcribe'],
      response_format: ['json'],
      'languages[]': ['de', 'fr'],
      prompt: ['p'],
      'keywords[]': ['Kubernetes'],
    },
    'gpt-transcribe: keywords[] and languages[] (no language beside them), json',
  )
  const whisper = engine(t, { baseUrl: server.baseUrl, model: 'whisper-1' })
  await whisper.transcribe(request)
  t.same(server.uploads[1]!.fields.language, ['de'], 'whisper-1: the one language')
  t.notOk('keywords[]' in server.uploads[1]!.fields, 'and no keywords')
  t.notOk('languages[]' in server.uploads[1]!.fields)
  const forced = engine(t, { baseUrl: server.baseUrl, model: 'whisper-1', keywords: true, languages: true })
  await forced.transcribe(request)
  t.same(server.uploads[2]!.fields['keywords[]'], ['Kubernetes'], 'keywords: true sends them to any model')
  t.same(server.uploads[2]!.fields['languages[]'], ['de', 'fr'])
  const translating = engine(t, { baseUrl: server.baseUrl, model: 'whisper-1', translate: true })
  await translating.transcribe({ ...request, task: 'translate' })
  t.equal(server.uploads[3]!.url, '/v1/audio/translations')
  t.same(Object.keys(server.uploads[3]!.fields).sort(), ['model', 'prompt', 'response_format'])
})

const scripted =
  (replies: Reply[]) =>
  (_: unknown, index: number): Reply =>
    replies[Math.min(index, replies.length - 1)]!

t.test('the multipart upload carries the file and every field', async (t) => {
  const server = await startTranscriptionServer(t, () => ({ json: verboseReply('hello world') }))
  const instance = engine(t, {
    baseUrl: server.baseUrl,
    model: 'whisper-large-v3',
    apiKey: 'key-123456',
    temperature: 0.3,
    wordTimestamps: true,
  })
  await instance.load()
  await instance.transcribe({ samples, customWords: [], language: 'de', prompt: 'Fachbegriffe' })
  const [upload] = server.uploads
  t.equal(upload!.headers.authorization, 'Bearer key-123456')
  t.same(upload!.fields, {
    model: ['whisper-large-v3'],
    response_format: ['verbose_json'],
    language: ['de'],
    prompt: ['Fachbegriffe'],
    temperature: ['0.3'],
    'timestamp_granularities[]': ['segment', 'word'],
  })
  t.equal(upload!.file?.name, 'audio.wav')
  t.equal(upload!.file?.type, 'audio/wav')
  const wav = upload!.file!.bytes
  t.equal(wav.toString('latin1', 0, 4), 'RIFF')
  t.equal(wav.readUInt32LE(24), 16000, '16 kHz')
  t.equal(wav.readUInt16LE(34), 16, '16-bit')
  t.equal(wav.readUInt32LE(40), samples.length * 2, 'every sample')
  t.equal(wav.readInt16LE(44 + 2 * 100), Math.round(samples[100]! * 32768), 'samples scaled by 32768')

  const plain = engine(t, { baseUrl: server.baseUrl, language: 'fr', prompt: 'default prompt' })
  await plain.transcribe({ samples, customWords: [] })
  t.notOk(server.uploads[1]!.headers.authorization, 'no key, no Authorization header')
  t.same(server.uploads[1]!.fields.language, ['fr'], 'configured language by default')
  t.same(server.uploads[1]!.fields.prompt, ['default prompt'])
  t.same(server.uploads[1]!.fields['timestamp_granularities[]'], ['segment'])
})

t.test(
  'replies: verbose_json gives segments, words, language and confidence; json gives text only',
  async (t) => {
    const reply = {
      ...verboseReply('Hello there.', [Math.log(0.9), Math.log(0.5)]),
      words: [
        { word: 'Hello', start: 0.1, end: 0.4 },
        { word: 'there', start: 0.5, end: 0.9, probability: 0.8 },
      ],
    }
    const server = await startTranscriptionServer(t, (upload) =>
      upload.fields.model?.[0] === 'json-model' ? { json: { text: ' Plain text. ' } } : { json: reply },
    )
    const verbose = await engine(t, { baseUrl: server.baseUrl }).transcribe({ samples, customWords: [] })
    t.equal(verbose.text, 'Hello there.')
    t.ok(Math.abs((verbose.confidence ?? 0) - 0.7) < 1e-9, 'mean of exp(avg_logprob) over segments')
    t.same(verbose.segments, [
      { text: 'Hello there.', start: 0, end: 1 },
      { text: 'Hello there.', start: 1, end: 2 },
    ])
    t.same(verbose.words, [
      { word: 'Hello', start: 0.1, end: 0.4 },
      { word: 'there', start: 0.5, end: 0.9, confidence: 0.8 },
    ])
    t.equal(verbose.language, 'en', 'language names become ISO codes')
    const uneven = await startTranscriptionServer(t, () => ({
      json: {
        text: 'a b c d',
        segments: [
          { id: 0, start: 0, end: 1, text: ' a b c', avg_logprob: Math.log(0.9) },
          { id: 1, start: 1, end: 2, text: ' d', avg_logprob: Math.log(0.5) },
        ],
      },
    }))
    const weighted = await engine(t, { baseUrl: uneven.baseUrl }).transcribe({ samples, customWords: [] })
    t.ok(
      Math.abs((weighted.confidence ?? 0) - 0.8) < 1e-9,
      'segments weigh by their words: (3 * 0.9 + 1 * 0.5) / 4, as one segment of the same words would give',
    )
    const json = await engine(t, {
      baseUrl: server.baseUrl,
      model: 'json-model',
      responseFormat: 'json',
    }).transcribe({ samples, customWords: [] })
    t.same(
      json,
      { text: 'Plain text.', confidence: null },
      'no segments, no confidence: the kernel falls back',
    )
    t.same(server.uploads.at(-1)!.fields.response_format, ['json'])
    t.notOk(
      server.uploads.at(-1)!.fields['timestamp_granularities[]'],
      'no granularities without verbose_json',
    )
  },
)

t.test('empty audio is not uploaded', async (t) => {
  const server = await startTranscriptionServer(t, () => ({ json: verboseReply('x') }))
  const result = await engine(t, { baseUrl: server.baseUrl }).transcribe({
    samples: new Float32Array(0),
    customWords: [],
  })
  t.equal(result.text, '')
  t.equal(server.uploads.length, 0)
})

t.test('429 then success: the retry honours Retry-After', async (t) => {
  const server = await startTranscriptionServer(
    t,
    scripted([
      {
        status: 429,
        json: { error: { message: 'Rate limit reached' } },
        headers: { 'retry-after-ms': '300' },
      },
      { json: verboseReply('after the wait') },
    ]),
  )
  const times: number[] = []
  const instance = engine(t, { baseUrl: server.baseUrl, retryDelayMs: 0 })
  const started = Date.now()
  void server.arrived(1).then(() => times.push(Date.now()))
  const result = await instance.transcribe({ samples, customWords: [] })
  times.push(Date.now())
  t.equal(result.text, 'after the wait')
  t.equal(server.uploads.length, 2, 'one retry')
  // A lower bound on a wait the server asked for (timers never fire early), not a speed requirement.
  t.ok(times[1]! - started >= 300, 'the second attempt came after the Retry-After delay')
})

t.test('a Retry-After longer than maxRetryAfterMs fails at once, naming the rate limit', async (t) => {
  const server = await startTranscriptionServer(t, () => ({
    status: 429,
    json: { error: { message: 'Rate limit reached for requests' } },
    headers: { 'retry-after': '3600' },
  }))
  const error = await failure(engine(t, { baseUrl: server.baseUrl }).transcribe({ samples, customWords: [] }))
  t.equal(server.uploads.length, 1)
  t.equal(error.code, 'REMOTE_ENGINE_FAILED')
  t.equal(error.statusCode, 502)
  t.match(error.message, `127.0.0.1:${server.port} answered HTTP 429: Rate limit reached for requests.`)
})

t.test('500 on every attempt: retries, then a 502 naming the server and the status', async (t) => {
  const server = await startTranscriptionServer(t, () => ({
    status: 500,
    json: { error: { message: 'boom' } },
  }))
  const error = await failure(
    engine(t, { baseUrl: server.baseUrl, retries: 2, retryDelayMs: 10 }).transcribe({
      samples,
      customWords: [],
    }),
  )
  t.equal(server.uploads.length, 3, 'first attempt and two retries')
  t.equal(
    error.message,
    `Remote transcription server failed: 127.0.0.1:${server.port} answered HTTP 500: boom.`,
  )
  const bad = await startTranscriptionServer(t, () => ({
    status: 400,
    json: { error: { message: 'bad file' } },
  }))
  const rejected = await failure(engine(t, { baseUrl: bad.baseUrl }).transcribe({ samples, customWords: [] }))
  t.equal(bad.uploads.length, 1, 'a 400 is not retried')
  t.match(rejected.message, /answered HTTP 400: bad file\.$/)
})

t.test('a server that refuses verbose_json gets json from then on', async (t) => {
  const server = await startTranscriptionServer(t, (upload) =>
    upload.fields.response_format?.[0] === 'verbose_json'
      ? { status: 400, json: { error: { message: "response_format 'verbose_json' is not supported" } } }
      : { json: { text: 'fine' } },
  )
  const instance = engine(t, { baseUrl: server.baseUrl })
  t.equal((await instance.transcribe({ samples, customWords: [] })).text, 'fine')
  t.equal((await instance.transcribe({ samples, customWords: [] })).text, 'fine')
  t.same(
    server.uploads.map((u) => u.fields.response_format?.[0]),
    ['verbose_json', 'json', 'json'],
  )
})

t.test('time limit: 504 naming the server; the upstream request is dropped', async (t) => {
  const server = await startTranscriptionServer(t, () => 'hang')
  const error = await failure(
    engine(t, { baseUrl: server.baseUrl, timeoutMs: 200 }).transcribe({ samples, customWords: [] }),
  )
  t.equal(error.code, 'REMOTE_ENGINE_TIMEOUT')
  t.equal(error.statusCode, 504)
  t.equal(
    error.message,
    `Remote transcription server timed out: 127.0.0.1:${server.port} sent no answer within 200 ms.`,
  )
  await server.abandonedCount(1)
  t.equal(server.uploads.length, 1, 'a timeout is not retried')
})

t.test('malformed replies are 502s that say what was wrong', async (t) => {
  const server = await startTranscriptionServer(t, (upload) =>
    upload.fields.model?.[0] === 'html'
      ? { body: '<html>oops</html>' }
      : { json: { transcript: 'no text field' } },
  )
  const html = await failure(
    engine(t, { baseUrl: server.baseUrl, model: 'html' }).transcribe({ samples, customWords: [] }),
  )
  t.equal(
    html.message,
    `Remote transcription server failed: 127.0.0.1:${server.port} sent a reply that is not valid JSON.`,
  )
  const odd = await failure(engine(t, { baseUrl: server.baseUrl }).transcribe({ samples, customWords: [] }))
  t.match(odd.message, /sent JSON without a transcript \(no "text" string\)\.$/)
  t.equal(server.uploads.length, 2, 'malformed replies are not retried')
})

t.test('the API key never appears in an error, even when the server echoes it', async (t) => {
  for (const key of ['sk-proj-abcdefghijklmnopqrstuvwxyz012345', 'plain-secret-value']) {
    const server = await startTranscriptionServer(t, (upload) => ({
      status: 401,
      json: { error: { message: `Incorrect API key provided: ${upload.headers.authorization}` } },
    }))
    const error = await failure(
      engine(t, { baseUrl: server.baseUrl, apiKey: key }).transcribe({ samples, customWords: [] }),
    )
    t.equal(server.uploads[0]!.headers.authorization, `Bearer ${key}`, 'the key was sent')
    t.notOk(error.message.includes(key), 'but it is not in the message')
    t.notOk(JSON.stringify(error).includes(key), 'nor anywhere in the error')
    t.match(
      error.message,
      /answered HTTP 401 \(authentication failed: check speech\.engines\.remote\.apiKey\)/,
    )
    t.match(error.message, /\[redacted\]/)
  }
})

t.test('cancellation: an aborted request drops the upstream request at once', async (t) => {
  const server = await startTranscriptionServer(t, () => 'hang')
  const instance = engine(t, { baseUrl: server.baseUrl })
  const controller = new AbortController()
  const pending = instance.transcribe({ samples, customWords: [] }, controller.signal)
  await server.arrived(1)
  const reason = new Error('the client went away')
  controller.abort(reason)
  await t.rejects(pending, reason, 'rejects with the abort reason')
  await server.abandonedCount(1)
  t.equal(server.abandoned, 1, 'the server saw the connection close before it answered')
  t.equal(server.uploads.length, 1, 'and no retry followed')

  const closing = engine(t, { baseUrl: server.baseUrl })
  const inFlight = closing.transcribe({ samples, customWords: [] })
  await server.arrived(2)
  await closing.close()
  await t.rejects(inFlight, /closed/, 'close() aborts uploads in flight')
  await server.abandonedCount(2)
})

t.test('connection refused: retried, then a 502 saying the server is unreachable', async (t) => {
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })
  const error = await failure(
    engine(t, { baseUrl: `http://127.0.0.1:${port}/v1`, retries: 1, retryDelayMs: 10 }).transcribe({
      samples,
      customWords: [],
    }),
  )
  t.equal(error.statusCode, 502)
  t.equal(
    error.message,
    `Remote transcription server failed: 127.0.0.1:${port} is unreachable (connection refused): is it running?`,
  )
})
