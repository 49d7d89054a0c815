/**
 * POST /v1/audio/transcriptions with the fixture engine (deterministic): every response format with exact
 * bodies, dictionary replacements, engine choice by `model`, form validation, limits (413 from Content-Length
 * and while streaming), errors in OpenAI's shape, and multipart staying inside this plugin.
 */
import { readFileSync } from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import t from 'tap'
import { build, injectJson } from '../../helpers/build.ts'
import { listen } from '../../helpers/http.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'
import { parseSrt, parseVtt } from './subtitle-parse.ts'

const GO = readFileSync(path.join(audioFixturesDir, 'goforward.wav'))
/** Frames of a 16-bit mono WAV, from its data chunk. */
function wavFrames(data: Buffer): number {
  for (let at = 12; at + 8 <= data.length; ) {
    const size = data.readUInt32LE(at + 4)
    if (data.toString('latin1', at, at + 4) === 'data') return size / 2
    at += 8 + size + (size % 2)
  }
  throw new Error('no data chunk')
}
const GO_FRAMES = wavFrames(GO)
type App = Awaited<ReturnType<typeof build>>

interface FormFile {
  data: Buffer
  filename?: string
  type?: string
}

/** A multipart body as an HTTP client sends it (built by the platform's own FormData). */
async function form(fields: Record<string, string | string[]>, file: FormFile | null = { data: GO }) {
  const body = new FormData()
  if (file)
    body.append('file', new Blob([file.data], { type: file.type ?? 'audio/wav' }), file.filename ?? 'a.wav')
  for (const [name, value] of Object.entries(fields)) {
    for (const v of Array.isArray(value) ? value : [value]) body.append(name, v)
  }
  const request = new Request('http://127.0.0.1/', { method: 'POST', body })
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { 'content-type': request.headers.get('content-type') as string },
  }
}

async function transcribe(app: App, fields: Record<string, string | string[]>, file?: FormFile | null) {
  const { payload, headers } = await form(fields, file)
  return app.inject({ method: 'POST', url: '/v1/audio/transcriptions', payload, headers })
}

t.test('every response format, exactly', async (t) => {
  const app = await build(t)
  const text = `heard ${GO_FRAMES} samples`
  const json = await transcribe(app, { model: 'whisper-1' })
  t.equal(json.statusCode, 200)
  t.match(json.headers['content-type'], /^application\/json/)
  t.same(json.json(), { text, languages: [{ code: 'en' }] }, 'json (the default) is {text, languages}')

  const plain = await transcribe(app, { model: 'whisper-1', response_format: 'text' })
  t.match(plain.headers['content-type'], /^text\/plain/)
  t.equal(plain.body, `${text}\n`)

  const seconds = GO_FRAMES / 16000
  const verbose = (
    await transcribe(app, { response_format: 'verbose_json', 'timestamp_granularities[]': 'word' })
  ).json()
  t.same(
    Object.keys(verbose).sort(),
    ['duration', 'language', 'languages', 'segments', 'task', 'text'],
    'no words from an engine without word timings',
  )
  t.match(verbose, { task: 'transcribe', text, duration: seconds })
  t.equal(verbose.segments.length, 1)
  const [segment] = verbose.segments
  t.same(Object.keys(segment).sort(), [
    'avg_logprob',
    'compression_ratio',
    'end',
    'id',
    'no_speech_prob',
    'seek',
    'start',
    'temperature',
    'text',
    'tokens',
  ])
  t.match(segment, {
    id: 0,
    seek: 0,
    start: 0,
    end: seconds,
    text,
    tokens: [],
    temperature: 0,
    no_speech_prob: 0,
  })
  t.ok(
    Math.abs(Math.exp(segment.avg_logprob) - 0.5) < 1e-9,
    'exp(avg_logprob) is the engine confidence (0.5)',
  )
  t.ok(segment.compression_ratio > 0)

  const srt = await transcribe(app, { response_format: 'srt' })
  t.same(parseSrt(srt.body), [{ start: 0, end: Math.round(seconds * 1000) / 1000, text }])
  const vtt = await transcribe(app, { response_format: 'vtt' })
  t.match(vtt.headers['content-type'], /^text\/vtt/)
  t.same(parseVtt(vtt.body), parseSrt(srt.body))
  const temperature = (await transcribe(app, { response_format: 'verbose_json', temperature: '0.2' })).json()
  t.equal(temperature.segments[0].temperature, 0.2, 'temperature is accepted and echoed')
})

t.test('dictionary replacements apply to every format', async (t) => {
  const app = await build(t)
  await injectJson(app, 'POST', '/v1/dictionary/replacements', {
    triggers: ['heard'],
    replacement: 'Listened to',
  })
  const expected = `Listened to ${GO_FRAMES} samples`
  for (const format of ['json', 'text', 'verbose_json', 'srt', 'vtt']) {
    const res = await transcribe(app, { response_format: format })
    t.ok(res.body.includes(expected), `${format}: ${res.body.slice(0, 80)}`)
    t.notOk(res.body.includes('heard'), `${format}: no trigger left`)
  }
})

t.test('model: an engine id picks that engine; any other name uses the selected one', async (t) => {
  const app = await build(t, {
    speech: {
      engines: { remote: { baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'DICTUM_TEST_UNSET_KEY' } },
    },
  })
  for (const model of [
    'gpt-4o-transcribe',
    'gpt-transcribe',
    'gpt-live-transcribe',
    'gpt-realtime-whisper',
  ]) {
    t.same(
      (await transcribe(app, { model })).json(),
      { text: `heard ${GO_FRAMES} samples`, languages: [{ code: 'en' }] },
      `${model} is the selected engine`,
    )
  }
  const remote = await transcribe(app, { model: 'remote' })
  t.equal(remote.statusCode, 503, 'the remote engine without a key is unavailable')
  t.match(remote.json(), {
    error: {
      message:
        /^Speech engine unavailable: Remote: whisper-1 at api\.openai\.com: api\.openai\.com needs an API key/,
      type: 'server_error',
      param: null,
      code: 'engine_unavailable',
      fix: /DICTUM_TEST_UNSET_KEY/,
    },
  })
})

t.test('form validation, in OpenAI error shape', async (t) => {
  const app = await build(t)
  const cases: Array<[string, Record<string, string>, FormFile | null, number, string | null, RegExp]> = [
    ['no file', { model: 'whisper-1' }, null, 400, 'file', /no "file" part/],
    ['empty file', {}, { data: Buffer.alloc(0) }, 400, 'file', /^Missing audio body\.$/],
    ['unknown format', { response_format: 'mp3' }, { data: GO }, 400, 'response_format', /one of json/],
    ['bad temperature', { temperature: 'hot' }, { data: GO }, 400, 'temperature', /0 to 1/],
    [
      'stream with subtitles',
      { stream: 'true', response_format: 'vtt' },
      { data: GO },
      400,
      'response_format',
      /not compatible with stream=true/,
    ],
    ['bad language', { language: 'English!' }, { data: GO }, 400, 'language', /ISO-639-1/],
    [
      'bad granularity',
      { 'timestamp_granularities[]': 'char' },
      { data: GO },
      400,
      'timestamp_granularities',
      /word/,
    ],
    [
      'not audio',
      {},
      { data: Buffer.from('hello'), filename: 'a.txt', type: 'text/plain' },
      400,
      null,
      /^Could not decode audio/,
    ],
  ]
  for (const [name, fields, file, status, param, message] of cases) {
    const res = await transcribe(app, fields, file)
    t.equal(res.statusCode, status, name)
    t.match(res.json(), { error: { message, type: 'invalid_request_error', param } }, name)
    t.type(res.json().error.code, 'string', `${name}: code`)
  }
  const json = await injectJson(app, 'POST', '/v1/audio/transcriptions', { file: 'x' })
  t.equal(json.status, 400, 'a JSON body is refused')
  t.match(json.body.error, { message: /multipart\/form-data/, param: 'file' })
  const hostile = await transcribe(app, {})
  t.equal(hostile.statusCode, 200)
  const foreign = await app.inject({
    method: 'POST',
    url: '/v1/audio/transcriptions',
    headers: { host: 'evil.example' },
  })
  t.equal(foreign.statusCode, 403, 'the Host guard applies')
  t.match(foreign.json(), {
    error: { message: /Host header/, type: 'invalid_request_error', code: 'forbidden_host' },
  })
  const wrongMethod = await app.inject({ method: 'GET', url: '/v1/audio/transcriptions' })
  t.equal(wrongMethod.statusCode, 405)
})

t.test('a form cut off inside a file part is a 400 in OpenAI shape (found by test/fuzz)', async (t) => {
  const app = await build(t)
  // The body ends in the middle of the file's bytes: no closing boundary. It was a 500 (busboy's
  // 'Premature close' of the file stream was not translated).
  // A part under another name is refused before it is read (a form carries one file part, `file`).
  const messages: Record<string, string> = {
    file: 'Invalid request: the multipart/form-data body is malformed.',
    audio:
      'Invalid request: unexpected file part "audio": a form carries one file part, named "file" (the audio).',
  }
  for (const name of ['file', 'audio']) {
    const payload = Buffer.concat([
      Buffer.from(`--cut\r\nContent-Disposition: form-data; name="${name}"; filename="a.wav"\r\n\r\n`),
      GO.subarray(0, 1000),
    ])
    const res = await app.inject({
      method: 'POST',
      url: '/v1/audio/transcriptions',
      payload,
      headers: { 'content-type': 'multipart/form-data; boundary=cut' },
    })
    t.equal(res.statusCode, 400, `part "${name}"`)
    t.match(res.json(), {
      error: {
        message: messages[name],
        type: 'invalid_request_error',
        code: 'invalid_request',
      },
    })
  }
})

t.test(
  'a form the parser stops reading early does not stall the connection (found by test/fuzz)',
  async (t) => {
    const app = await build(t)
    const port = await listen(t, app)
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    t.teardown(() => agent.destroy())
    const ask = (method: string, path: string, headers: Record<string, string>, body?: Buffer) =>
      new Promise<number | 'no answer'>((resolve, reject) => {
        const request = http.request(
          { host: '127.0.0.1', port, method, path, headers, agent },
          (response) => {
            response.resume()
            response.on('end', () => resolve(response.statusCode ?? 0))
          },
        )
        request.setTimeout(10_000, () => {
          request.destroy()
          resolve('no answer')
        })
        request.on('error', reject)
        request.end(body)
      })
    // A second close delimiter in the epilogue ends the parser while 300 KB are still to come: the 400 went out
    // on a kept-alive connection whose unread body then blocked the next request on it.
    const form = Buffer.concat([Buffer.from('--x--\r\nepilogue\r\n--x--\r\n'), Buffer.alloc(300_000, 'a')])
    const first = await ask(
      'POST',
      '/v1/audio/transcriptions',
      { 'content-type': 'multipart/form-data; boundary=x' },
      form,
    )
    t.equal(first, 400)
    t.equal(await ask('GET', '/v1/health', {}), 200, 'the next request from the same client is answered')
  },
)

/** Sends a multipart body over real HTTP, chunked (no Content-Length) or with a declared length. */
function send(port: number, body: Buffer, headers: Record<string, string>, chunked: boolean) {
  return new Promise<{ status: number; json: unknown }>((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/v1/audio/transcriptions', agent: false, headers },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (c: Buffer) => chunks.push(c))
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }),
        )
      },
    )
    // The server may answer and close before the whole body is written.
    request.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' ? undefined : reject(error),
    )
    if (chunked) {
      request.write(body.subarray(0, 1000))
      request.end(body.subarray(1000))
    } else request.end(body)
  })
}

t.test('413 Request too large: from Content-Length, and while streaming a chunked body', async (t) => {
  const app = await build(t, { api: { audioBodyLimit: 4096 } })
  const port = await listen(t, app)
  const big = await form({}, { data: Buffer.alloc(1_100_000 + 4096, 1) })
  const declared = await send(
    port,
    big.payload,
    { ...big.headers, 'content-length': String(big.payload.length) },
    false,
  )
  t.equal(declared.status, 413)
  t.same(declared.json, {
    error: {
      message: 'Request too large.',
      type: 'invalid_request_error',
      param: null,
      code: 'request_too_large',
    },
  })
  const small = await form({}, { data: Buffer.alloc(8192, 1) })
  const streamed = await send(port, small.payload, { ...small.headers, 'transfer-encoding': 'chunked' }, true)
  t.equal(streamed.status, 413, 'a file over the limit in a chunked body')
  t.match(streamed.json, { error: { message: 'Request too large.', code: 'request_too_large' } })
  const fits = await form({}, { data: GO.subarray(0, 4000) })
  const ok = await send(port, fits.payload, { ...fits.headers, 'transfer-encoding': 'chunked' }, true)
  t.equal(ok.status, 200, 'a file within the limit')
})

t.test('history records these transcriptions only with history.recordTranscribe', async (t) => {
  const off = await build(t)
  await transcribe(off, {})
  t.equal((await injectJson(off, 'GET', '/v1/history')).body.count, 0)
  const on = await build(t, { history: { recordTranscribe: true } })
  await transcribe(on, {})
  const history = (await injectJson(on, 'GET', '/v1/history')).body
  t.equal(history.count, 1)
  t.equal(history.items[0].finalText, `heard ${GO_FRAMES} samples`)
})

t.test(
  "multipart parsing stays inside this plugin: /v1/transcribe keeps dictum's result and errors",
  async (t) => {
    const app = await build(t)
    const { payload, headers } = await form({})
    const res = await app.inject({ method: 'POST', url: '/v1/transcribe', payload, headers })
    t.equal(res.statusCode, 200, '/v1/transcribe reads the form itself (its file part)')
    t.match(res.json(), { text: /^heard \d+ samples$/, provider: String, sampleCount: Number })
    const noFile = await form({}, null)
    const missing = await app.inject({ method: 'POST', url: '/v1/transcribe', ...noFile })
    t.match(missing.json(), { error: /no "file" part/, code: 'INVALID_REQUEST' }, "dictum's error shape")
    const bad = await injectJson(app, 'POST', '/v1/transcribe', '{nope')
    t.same(bad.body, { error: 'Invalid JSON audio payload.', code: 'INVALID_AUDIO_JSON' })
  },
)
