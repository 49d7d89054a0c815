import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import t from 'tap'
import { build, injectJson, tempDir } from '../../helpers/build.ts'
import { listen, rawRequest } from '../../helpers/http.ts'
import { audioFixturesDir, encodeWav, tone } from '../../helpers/wav.ts'

const JFK = path.join(audioFixturesDir, 'jfk.wav')
const JFK_MP3 = path.join(audioFixturesDir, 'original-formats/jfk.mp3')
const FLAC = path.join(audioFixturesDir, 'original-formats/librispeech-1089-134686-0001.flac')
const FLAC_WAV = path.join(audioFixturesDir, 'librispeech-1089-134686-0001.wav')
const SPEECH_60S = path.join(audioFixturesDir, 'extra/silero-vad-test-en-60s.wav')
/** Frames of a 16-bit mono WAV, from its data chunk. */
function wavFrames(file: string): number {
  const data = readFileSync(file)
  for (let at = 12; at + 8 <= data.length; ) {
    const size = data.readUInt32LE(at + 4)
    if (data.toString('latin1', at, at + 4) === 'data') return size / 2
    at += 8 + size + (size % 2)
  }
  throw new Error(`no data chunk in ${file}`)
}

const post = (
  app: Awaited<ReturnType<typeof build>>,
  payload: unknown,
  headers: Record<string, string> = {},
) =>
  app.inject({
    method: 'POST',
    url: '/v1/transcribe',
    payload: payload as string,
    headers: Buffer.isBuffer(payload) ? { 'content-type': 'audio/wav', ...headers } : headers,
  })

t.test(
  'the three input modes with WAV, MP3 and FLAC; sampleCount exact; provider is the display name',
  async (t) => {
    const app = await build(t)
    const jfk = readFileSync(JFK)
    const frames = wavFrames(JFK)
    const cases: Array<[string, unknown, Record<string, string>?]> = [
      ['path WAV', { path: JFK }],
      ['path MP3', { path: JFK_MP3 }],
      ['base64 WAV', { audioBase64: jfk.toString('base64') }],
      ['base64 MP3', { audioBase64: readFileSync(JFK_MP3).toString('base64'), filename: 'x.mp3' }],
      ['raw WAV', jfk],
      ['raw MP3', readFileSync(JFK_MP3), { 'content-type': 'audio/mpeg', 'x-filename': 'jfk.mp3' }],
    ]
    for (const [name, payload, headers] of cases) {
      const res = await post(app, payload, headers)
      t.equal(res.statusCode, 200, name)
      t.same(
        res.json(),
        {
          text: `heard ${frames} samples`,
          confidence: 0.5,
          sampleCount: frames,
          provider: 'Fixture Echo (default)',
          rawText: `heard ${frames} samples`,
        },
        name,
      )
    }
    const flac = (await post(app, { path: FLAC })).json()
    const flacRaw = (
      await post(app, readFileSync(FLAC), { 'content-type': 'audio/flac', 'x-filename': 'a.flac' })
    ).json()
    t.equal(flac.sampleCount, wavFrames(FLAC_WAV), 'FLAC decodes to the same length as its WAV twin')
    t.equal(flacRaw.sampleCount, flac.sampleCount)
  },
)

t.test('generated WAV variants: 8/24-bit, float, stereo, 44.1 and 48 kHz', async (t) => {
  const app = await build(t)
  const variants: Array<[string, number, 'u8' | 's16' | 's24' | 's32' | 'f32' | 'f64', number]> = [
    ['8-bit', 16000, 'u8', 1],
    ['24-bit', 16000, 's24', 1],
    ['32-bit int', 16000, 's32', 1],
    ['float32', 16000, 'f32', 1],
    ['float64', 16000, 'f64', 1],
    ['stereo', 16000, 's16', 2],
    ['44.1 kHz', 44100, 's16', 1],
    ['48 kHz stereo float', 48000, 'f32', 2],
  ]
  for (const [name, rate, format, channels] of variants) {
    const frames = Math.round(rate * 1.5)
    const data = Array.from({ length: channels }, () => tone(440, rate, frames, 0.3))
    const res = await post(app, encodeWav(data, { sampleRate: rate, format }))
    t.equal(res.statusCode, 200, name)
    t.equal(res.json().sampleCount, Math.round((frames * 16000) / rate), `${name}: sampleCount`)
  }
})

t.test('every error message of the spec and docs/api-decisions.md', async (t) => {
  const app = await build(t)
  const expect = async (
    payload: unknown,
    status: number,
    error: string | RegExp,
    headers?: Record<string, string>,
  ) => {
    const res = await post(app, payload, headers)
    t.equal(res.statusCode, status, JSON.stringify(payload).slice(0, 60))
    t.match(res.json().error, error)
  }
  await expect({}, 400, 'Missing audio path or audioBase64.')
  await expect({ path: '' }, 400, 'Missing audio path or audioBase64.')
  await expect({ path: '   ', audioBase64: '' }, 400, 'Missing audio path or audioBase64.')
  await expect({ audioBase64: 'not base64 !!' }, 400, 'Missing audio path or audioBase64.')
  await expect({ audioBase64: 42 }, 400, 'Missing audio path or audioBase64.')
  await expect([1, 2], 400, 'Missing audio path or audioBase64.', { 'content-type': 'application/json' })
  await expect('{"path": ', 400, 'Invalid JSON audio payload.', { 'content-type': 'application/json' })
  await expect(Buffer.alloc(0), 400, 'Missing audio body.')
  await expect({ path: 'relative/file.wav' }, 400, /^Audio path must be absolute: relative\/file\.wav\.$/)
  await expect({ path: '/no/such/file.wav' }, 400, /^Audio file not found: \/no\/such\/file\.wav\.$/)
  await expect({ path: audioFixturesDir }, 400, /^Audio file is not readable: /)
  await expect(Buffer.from('RIFF....WAVEjunk'), 400, /^Could not decode audio: /)
  await expect(
    { audioBase64: Buffer.from('certainly not audio').toString('base64'), filename: 'a.mp3' },
    400,
    /^Could not decode audio: /,
  )
  const bare = await app.inject({ method: 'POST', url: '/v1/transcribe' })
  t.equal(bare.statusCode, 400)
  t.equal(bare.json().error, 'Missing audio body.')
})

t.test('a non-empty path wins over audioBase64', async (t) => {
  const app = await build(t)
  const tiny = encodeWav([new Float32Array(1600)], { sampleRate: 16000, format: 's16' })
  const res = await post(app, { path: JFK, audioBase64: tiny.toString('base64') })
  t.equal(res.json().sampleCount, wavFrames(JFK))
})

/** Sends a request head announcing `length` bytes, then whatever the server lets through. */
function announce(port: number, length: number, contentType: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /v1/transcribe HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n`,
      )
      socket.write(Buffer.alloc(64 * 1024))
    })
    let data = ''
    socket.on('data', (c) => {
      data += c.toString()
      if (data.includes('}')) socket.end()
    })
    socket.on('close', () => resolve(data))
    socket.on('error', (err) => (data ? resolve(data) : reject(err)))
  })
}

t.test('413 on a 26 MB body, decided from Content-Length before reading; 25 MB limit', async (t) => {
  const app = await build(t)
  const port = await listen(t, app)
  for (const type of ['audio/wav', 'application/json']) {
    const reply = await announce(port, 26_000_000, type)
    t.match(reply, /^HTTP\/1\.1 413/, type)
    t.match(reply, /"error":"Request too large\."/)
  }
  const body = Buffer.alloc(26_000_000)
  body.write('RIFF')
  const full = await rawRequest({
    port,
    method: 'POST',
    path: '/v1/transcribe',
    headers: { 'content-type': 'audio/wav' },
    body,
  }).catch((err: NodeJS.ErrnoException) => ({
    status: err.code === 'EPIPE' || err.code === 'ECONNRESET' ? 413 : 0,
    json: { error: 'Request too large.' },
  }))
  t.equal(full.status, 413, 'a whole 26 MB upload')
  t.equal(full.json.error, 'Request too large.')
  const justUnder = await rawRequest({
    port,
    method: 'POST',
    path: '/v1/transcribe',
    headers: { 'content-type': 'audio/wav' },
    body: Buffer.alloc(24_000_000),
  })
  t.equal(justUnder.status, 400, 'a 24 MB body is read (and then fails to decode), not refused')
  t.match(justUnder.json.error, /^Could not decode audio/)
})

t.test('no temporary file is left after success or failure', async (t) => {
  const tmp = tempDir(t)
  const dataDir = tempDir(t)
  const m4a = path.join(tempDir(t), 'clip.m4a')
  const previous = process.env.TMPDIR
  process.env.TMPDIR = tmp
  t.teardown(() => {
    if (previous === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previous
  })
  const app = await build(t, { dataDir })
  execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-i', JFK, '-c:a', 'aac', m4a])
  const ok = await post(app, readFileSync(m4a), { 'content-type': 'audio/mp4', 'x-filename': 'clip.m4a' })
  t.equal(ok.statusCode, 200)
  t.ok(Math.abs(ok.json().sampleCount - wavFrames(JFK)) < 2048, 'm4a decoded to about the clip length')
  const bad = await post(app, Buffer.concat([readFileSync(m4a).subarray(0, 2000), Buffer.alloc(5000)]), {
    'content-type': 'audio/mp4',
    'x-filename': 'bad.m4a',
  })
  t.equal(bad.statusCode, 400)
  const mp3 = await post(app, readFileSync(JFK_MP3), { 'content-type': 'audio/mpeg', 'x-filename': 'a.mp3' })
  t.equal(mp3.statusCode, 200)
  t.same(readdirSync(tmp), [], 'the temp folder is empty')
})

t.test('dictionary replacements apply to the transcript; rawText keeps the engine words', async (t) => {
  const app = await build(t, {
    speech: { engines: { 'fixture-echo': { text: 'ask chat gpt about open ai' } } },
  })
  await injectJson(app, 'POST', '/v1/dictionary/replacements', {
    entries: [
      { triggers: ['chat gpt'], replacement: 'ChatGPT' },
      { triggers: ['open ai'], replacement: 'OpenAI' },
    ],
  })
  const res = (await post(app, { path: JFK })).json()
  t.equal(res.text, 'ask ChatGPT about OpenAI')
  t.equal(res.rawText, 'ask chat gpt about open ai')
})

t.test('silence gives empty text (VAD), never invented words', async (t) => {
  const app = await build(t)
  const silence = encodeWav([new Float32Array(16000 * 3)], { sampleRate: 16000, format: 's16' })
  const res = (await post(app, silence)).json()
  t.same(res, {
    text: '',
    confidence: 0,
    sampleCount: 48000,
    provider: 'Fixture Echo (default)',
    rawText: '',
  })
  const noise = new Float32Array(16000 * 3).map(() => (Math.random() - 0.5) * 0.002)
  t.equal((await post(app, encodeWav([noise], { sampleRate: 16000, format: 's16' }))).json().text, '')
})

t.test('long audio is cut at pauses into pieces no longer than the engine window', async (t) => {
  const app = await build(t, { speech: { engines: { 'fixture-echo': { maxAudioSeconds: 10 } } } })
  const res = (await post(app, { path: SPEECH_60S })).json()
  t.equal(res.sampleCount, 960000)
  const pieces = [...res.text.matchAll(/heard (\d+) samples/g)].map((m) => Number(m[1]))
  t.ok(pieces.length >= 6, `60 s in pieces: ${pieces.length} pieces`)
  t.ok(
    pieces.every((n) => n <= 160000),
    'no piece is longer than 10 s',
  )
  t.ok(pieces.reduce((a, b) => a + b, 0) < 960000, 'pauses were left out')
})
