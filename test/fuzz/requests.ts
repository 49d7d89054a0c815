/**
 * The request generator of the API fuzz test: from the routes the app lists and a seeded generator, one
 * hostile-but-plausible HTTP request at a time. Most requests go to a real route with its method and a body
 * shaped like a valid one with some fields broken; the rest use other methods, unknown paths, wrong content
 * types, broken JSON and multipart, lying WAV headers, hostile query strings and headers (Host, Origin,
 * Authorization, X-Filename, X-App-Name…), and raw bytes Node's HTTP client would refuse to send.
 */
import path from 'node:path'
import { audioFixturesDir } from '../helpers/fixtures.ts'
import {
  longReplacementRules,
  lyingWav,
  oneHertzWav,
  PUNCTUATED_TRIGGERS,
  shortWav,
} from '../helpers/hostile-inputs.ts'
import type { Prng } from './prng.ts'

/** A route as the OpenAPI document lists it (`/v1/models/{id}`). */
export interface Route {
  method: string
  path: string
}

export interface FuzzRequest {
  /** `METHOD /template` of the route aimed at (for coverage), or `METHOD ?` for unknown paths. */
  label: string
  method: string
  /** Path and query string as sent. */
  target: string
  headers: Array<[string, string]>
  body: Buffer | undefined
  /** Written to a socket as they are (framing and bytes Node's client refuses); `Connection: close`. */
  raw: Buffer | undefined
  /** The request is incomplete on purpose (its body shorter than its length): closing without an answer is fine. */
  incomplete: boolean
}

/** Inputs built once, before the run (large ones would otherwise be built while the event loop is timed). */
export interface Payloads {
  token: string
  /** 24 MB of nested JSON arrays (issue 16 item 8), for the audio routes. */
  nestedAudioJson: Buffer
  /** Just under the 1 MB body limit of the other routes, nested as deep as it goes. */
  nestedSmallJson: Buffer
  /** 1000 replacement rules with long triggers (issue 16 item 4), as a `replace` body. */
  longRules: Buffer
  /** A base64 WAV body of ~8 MB (about 4 minutes of audio) for /v1/transcribe and /v1/dictate. */
  longAudioJson: Buffer
  /** A string of ~900 KB, for fields of the 1 MB routes. */
  longText: string
}

const AUDIO_ROUTES = new Set([
  '/v1/transcribe',
  '/v1/dictate',
  '/v1/audio/transcriptions',
  '/v1/audio/translations',
])
const OPENAI_AUDIO_ROUTES = new Set(['/v1/audio/transcriptions', '/v1/audio/translations'])

const knownIds = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${prefix}${String(i).padStart(4, '0')}`)

/**
 * Entries the fuzz test stores before the run, so the routes that act on one entry by id can find one: the
 * valid dictionary writes of the run name these ids too (so deleted ones come back), and the catalog model
 * the test's local mirror serves.
 */
export const FUZZ_IDS = {
  rules: knownIds('00000001', 5),
  words: knownIds('00000002', 5),
  history: knownIds('00000003', 80),
  model: 'fuzz-model',
  /** Jobs the test submits (and lets complete) before the run; their ids are only known then. */
  jobs: [] as string[],
}
const RESULT_FORMATS = ['json', 'text', 'srt', 'vtt', 'verbose_json']
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE']
/** Methods Node's parser does not know (answered before routing) or knows but no route has. */
const ODD_METHODS = ['FOO', 'PROPFIND', 'PURGE', 'MKCOL', 'LINK', 'SEARCH', 'get']

const WAV = shortWav(0.25)
const FIXTURE_WAV = path.join(audioFixturesDir, 'goforward.wav')
const FIXTURE_RAW = path.join(audioFixturesDir, 'original-formats/goforward.s16le-16k-mono.raw')

/** A JSON value written as given (numbers JSON.stringify cannot produce, such as 1e999). */
class RawJson {
  constructor(readonly text: string) {}
}

function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`)
      .join(',')}}`
  return JSON.stringify(value) ?? 'null'
}

/** Strings that have broken text handling somewhere: lone surrogates, NULs, path tricks, markup, punctuation. */
function hostileString(rng: Prng, maxLength: number): string {
  switch (rng.int(0, 15)) {
    case 0:
      return ''
    case 1:
      return '\ud800'
    case 2:
      return `a\udc00b${'\ud83d'}`
    case 3:
      return 'nul\u0000byte'
    case 4:
      return rng.pick(PUNCTUATED_TRIGGERS)
    case 5:
      return rng.pick([
        '../../../etc/passwd',
        '/etc/passwd',
        'C:\\windows\\win.ini',
        '%2e%2e%2f',
        'file:///etc',
      ])
    case 6:
      return rng.pick([
        '<script>alert(1)</script>',
        "'; DROP TABLE history; --",
        '$' + '{process.exit()}',
        '{{7*7}}',
      ])
    case 7:
      return rng.pick(['\u202eevil', 'e\u0301', '👩‍👩‍👧‍👦', 'ﷺ', '\uffff', '\ufeffbom', 'İı', 'ß'])
    case 8:
      return ' \t\n '
    case 9:
      return 'x'.repeat(rng.length(maxLength))
    case 10:
      return Array.from({ length: rng.length(Math.max(1, maxLength / 6)) }, () =>
        rng.pick(['word', 'e-mail', 'the']),
      ).join(' ')
    case 11:
      return rng.pick(['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'])
    case 12:
      return String.fromCharCode(...Array.from({ length: rng.int(1, 40) }, () => rng.int(0, 0xffff)))
    default:
      return rng.pick(['open ai', 'hello world', 'Kubernetes', 'heard', 'samples', 'wi-fi'])
  }
}

/** A value of the wrong type or out of range, for any field. */
function hostileValue(rng: Prng, payloads: Payloads, maxLength: number): unknown {
  switch (rng.int(0, 12)) {
    case 0:
      return null
    case 1:
      return rng.pick([true, false])
    case 2:
      return new RawJson(
        rng.pick(['1e999', '-1e999', '-0', '1e-400', '9007199254740993', '123456789012345678901234567890']),
      )
    case 3:
      return rng.pick([0, -1, 0.5, 100, 100.0001, 1e308, -2147483649, 4294967296])
    case 4:
      return []
    case 5:
      return {}
    case 6:
      return [hostileString(rng, 50), 1, null, { a: [] }]
    case 7:
      return new RawJson('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}')
    case 8:
      return payloads.longText.slice(0, rng.length(payloads.longText.length))
    default:
      return hostileString(rng, maxLength)
  }
}

/**
 * Sets a field of the body, `__proto__` included: assigned, that key set the object's prototype instead,
 * so it was never sent, and a RawJson prototype made toJson write the object as its `text` field.
 */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** `value` with some of its fields (at any depth) replaced, removed or added. */
function mutate(rng: Prng, value: unknown, payloads: Payloads, maxLength: number, depth = 0): unknown {
  if (Array.isArray(value)) {
    const out = value.map((v) => (rng.chance(0.3) ? mutate(rng, v, payloads, maxLength, depth + 1) : v))
    if (rng.chance(0.1)) out.push(hostileValue(rng, payloads, maxLength))
    return out
  }
  if (value !== null && typeof value === 'object' && !(value instanceof RawJson)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      if (rng.chance(0.08)) continue
      setOwn(out, k, rng.chance(0.3) ? mutate(rng, v, payloads, maxLength, depth + 1) : v)
    }
    if (rng.chance(0.1)) setOwn(out, hostileString(rng, 20), hostileValue(rng, payloads, 20))
    return out
  }
  return rng.chance(0.6) ? hostileValue(rng, payloads, maxLength) : value
}

function base64Audio(rng: Prng): string {
  switch (rng.int(0, 7)) {
    case 0:
      return 'not base64 at all!'
    case 1:
      return WAV.toString('base64url')
    case 2:
      return `data:audio/wav;base64,${WAV.toString('base64')}`
    case 3:
      return WAV.toString('base64').slice(0, rng.int(1, 200))
    case 4:
      return WAV.toString('base64').replace(/(.{60})/g, '$1\n')
    case 5:
      return hostileWav(rng).toString('base64')
    default:
      return WAV.toString('base64')
  }
}

/** A WAV file whose header lies (issue 16 item 2 and friends), or an honest one now and then. */
function hostileWav(rng: Prng): Buffer {
  switch (rng.int(0, 14)) {
    case 0:
      return oneHertzWav()
    case 1:
      return lyingWav({ sampleRate: rng.pick([0, 999, 384_001, 0xffffffff, 7, 44_100, 8000]) })
    case 2:
      return lyingWav({ channels: rng.pick([0, 3, 255, 65_535]) })
    case 3:
      return lyingWav({ bitsPerSample: rng.pick([0, 1, 7, 12, 64, 65_535]) })
    case 4:
      return lyingWav({ formatTag: rng.pick([0, 2, 3, 0x55, 0xfffe, 0xffff]) })
    case 5:
      return lyingWav({ dataSizeField: rng.pick([0, 1, 0x7fffffff, 0xffffffff, 3201]) })
    case 6:
      return lyingWav({ fmtSizeField: rng.pick([0, 2, 15, 1000, 0xffffffff]) })
    case 7:
      return lyingWav({ riffSizeField: rng.pick([0, 4, 0xffffffff]) })
    case 8:
      return lyingWav({ blockAlign: rng.pick([0, 1, 3, 65_535]) })
    case 9:
      return lyingWav({ dataBytes: rng.pick([0, 1, 3]) })
    case 10:
      return WAV.subarray(0, rng.int(0, 60))
    case 11:
      return lyingWav({
        sampleRate: rng.pick([8000, 48_000, 384_000]),
        channels: 2,
        dataBytes: rng.int(0, 20_000),
      })
    default:
      return rng.chance(0.5) ? WAV : shortWav(rng.pick([0.01, 0.5, 1]), rng.pick([8000, 22_050, 44_100]))
  }
}

/** Audio bytes for the raw-body and multipart modes. ffmpeg-bound inputs are rare: each spawns ffmpeg. */
function audioBytes(rng: Prng): Buffer {
  const roll = rng.next()
  if (roll < 0.7) return hostileWav(rng)
  if (roll < 0.78) return Buffer.alloc(0)
  if (roll < 0.86) return Buffer.from(hostileString(rng, 200))
  if (roll < 0.9)
    return Buffer.concat([
      Buffer.from(rng.pick(['ID3', 'OggS', 'fLaC', 'RIFF\0\0\0\0AVI ', 'FORMxxxxAIFF'])),
      rng.bytes(rng.int(0, 400)),
    ])
  if (roll < 0.94) return Buffer.concat([WAV.subarray(0, 44), rng.bytes(rng.int(0, 2000))])
  return rng.bytes(rng.int(1, 64))
}

function audioFilename(rng: Prng): string {
  return rng.pick([
    'audio.wav',
    'a.raw',
    'a.pcm',
    'note.mp3',
    'x.m3u8',
    'list.ffconcat',
    'a.sdp',
    '../../etc/passwd',
    '',
    ' ',
    'a'.repeat(rng.length(5000)),
    'noext',
    '.wav',
    'a.WAV',
    'con.wav',
    'a\u0000b.wav',
  ])
}

function audioPath(rng: Prng): string {
  return rng.pick([
    FIXTURE_WAV,
    FIXTURE_WAV,
    FIXTURE_RAW,
    '/dev/zero',
    '/dev/null',
    '/dev/urandom',
    '/proc/self/environ',
    '/proc/self/mem',
    '/etc/passwd',
    '/',
    '/tmp',
    'relative/a.wav',
    '/does/not/exist.wav',
    `${FIXTURE_WAV}\u0000.txt`,
    `/${'a'.repeat(5000)}.wav`,
    '/etc/shadow',
    'file:///etc/passwd',
    '\\\\server\\share\\a.wav',
    `${audioFixturesDir}/../audio/goforward.wav`,
  ])
}

/** The JSON body of a transcription-like route, valid in shape, with fields broken by `mutate`. */
function audioJson(rng: Prng, payloads: Payloads, route: string): unknown {
  const body: Record<string, unknown> = rng.chance(0.35)
    ? { path: audioPath(rng) }
    : { audioBase64: base64Audio(rng) }
  if (rng.chance(0.3)) body.filename = audioFilename(rng)
  if (rng.chance(0.2)) body.language = rng.pick(['en', 'en-US', 'de', 'xx', '', 'EN_gb', 'a'.repeat(300)])
  if (rng.chance(0.2)) body.prompt = hostileString(rng, 3000)
  if (route === '/v1/dictate') {
    if (rng.chance(0.5))
      body.appName = rng.chance(0.2) ? 'x'.repeat(rng.pick([1024, 1025, 50_000])) : hostileString(rng, 1500)
    if (rng.chance(0.5)) body.windowTitle = hostileString(rng, 1500)
  }
  return rng.chance(0.4) ? mutate(rng, body, payloads, 3000) : body
}

function replacementsBody(rng: Prng, payloads: Payloads): unknown {
  // Two requests in five are valid, so the writes (and the transcriptions after them) are exercised too.
  const valid = rng.chance(0.4)
  const hostile = (p: number) => !valid && rng.chance(p)
  const entry = () => ({
    ...(rng.chance(0.2)
      ? { id: rng.pick([...FUZZ_IDS.rules, '00000000-0000-4000-8000-000000000000', 'not-a-uuid', '']) }
      : {}),
    triggers: Array.from({ length: valid ? rng.length(50) : rng.length(60) }, () =>
      hostile(0.3)
        ? hostileString(rng, 250)
        : rng.pick(['open ai', 'heard', 'e-mail', 'wi-fi', 'samples', 'c++']),
    ),
    replacement: hostile(0.3) ? hostileString(rng, 2500) : rng.pick(['OpenAI', 'Email', 'Wi-Fi', '$&', '$1']),
  })
  const body: Record<string, unknown> = rng.chance(0.5)
    ? entry()
    : { entries: Array.from({ length: rng.length(40) }, entry) }
  if (rng.chance(0.5))
    body.mode = valid ? rng.pick(['append', 'replace']) : rng.pick(['REPLACE', 'merge', ''])
  return hostile(0.5) ? mutate(rng, body, payloads, 2500) : body
}

function customWordsBody(rng: Prng, payloads: Payloads): unknown {
  const valid = rng.chance(0.4)
  const hostile = (p: number) => !valid && rng.chance(p)
  const entry = () => ({
    ...(rng.chance(0.2) ? { id: rng.pick([...FUZZ_IDS.words, 'nope']) } : {}),
    text: hostile(0.3)
      ? hostileString(rng, 250)
      : rng.pick(['Kubernetes', 'PostgreSQL', 'e-mail', 'Grafana']),
    ...(rng.chance(0.5)
      ? { weight: valid ? rng.pick([null, 1, 20, 100]) : rng.pick([0, -5, 100.5, 'heavy']) }
      : {}),
    ...(rng.chance(0.5)
      ? {
          aliases: Array.from({ length: valid ? rng.length(20) : rng.length(25) }, () =>
            hostile(0.3) ? hostileString(rng, 250) : rng.pick(['cube er net ease', 'post gres', 'e mail']),
          ),
        }
      : {}),
  })
  const body: Record<string, unknown> = rng.chance(0.5)
    ? entry()
    : { entries: Array.from({ length: valid ? rng.length(256) : rng.length(300) }, entry) }
  if (rng.chance(0.5)) body.mode = valid ? rng.pick(['append', 'replace']) : 'nope'
  return hostile(0.5) ? mutate(rng, body, payloads, 250) : body
}

/** A PATCH of one rule or word: some of its fields, valid or not. */
function entryPatchBody(rng: Prng, payloads: Payloads, words: boolean): unknown {
  const whole = (words ? customWordsBody(rng, payloads) : replacementsBody(rng, payloads)) as Record<
    string,
    unknown
  >
  const entry = (Array.isArray(whole?.entries) ? whole.entries[0] : whole) ?? {}
  const body: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(entry as Record<string, unknown>))
    if (key !== 'id' && rng.chance(0.6)) body[key] = value
  return rng.chance(0.2) ? mutate(rng, body, payloads, 300) : body
}

/** PATCH /v1/settings: the three settings, valid or not, and keys a page must never change. */
function settingsBody(rng: Prng, payloads: Payloads): unknown {
  const body: Record<string, unknown> = {}
  if (rng.chance(0.5)) body.speech = { engine: rng.pick(['fixture-echo', 'fixture-echo', 'nope', '', 5]) }
  if (rng.chance(0.5))
    body.ai = { provider: rng.pick(['fixture-upper', 'fixture-upper', 'none', 'rules', 'nope', null]) }
  if (rng.chance(0.5)) body.history = { enabled: rng.pick([true, true, false, 'yes', null]) }
  if (rng.chance(0.1)) body.api = { token: null, allowedOrigins: ['http://evil.example'] }
  if (rng.chance(0.05)) body.dataDir = '/tmp/elsewhere'
  return rng.chance(0.2) ? mutate(rng, body, payloads, 300) : body
}

/** A multipart form: the OpenAI route's fields, or /v1/transcribe's; sometimes broken on purpose. */
function multipart(rng: Prng, route: string): { contentType: string; body: Buffer } {
  const boundary = rng.chance(0.05) ? 'b'.repeat(rng.pick([1, 70, 200])) : `----fuzz${rng.int(0, 1e9)}`
  const parts: Buffer[] = []
  const field = (name: string, value: string) =>
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    )
  const file = (name: string, filename: string, type: string, data: Buffer) =>
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
      ),
      data,
      Buffer.from('\r\n'),
    )
  if (rng.chance(0.9))
    file(
      rng.chance(0.9) ? 'file' : 'audio',
      audioFilename(rng).replace(/"/g, ''),
      rng.pick(['audio/wav', 'application/octet-stream', 'text/plain', '']),
      rng.chance(0.4) ? WAV : audioBytes(rng),
    )
  if (rng.chance(0.1)) file('file', 'second.wav', 'audio/wav', WAV)
  if (rng.chance(0.1)) file('extra', 'x.bin', 'application/octet-stream', Buffer.alloc(rng.length(200_000)))
  if (OPENAI_AUDIO_ROUTES.has(route) || rng.chance(0.2)) {
    if (rng.chance(0.85))
      field(
        'model',
        rng.pick([
          'whisper-1',
          'whisper-1',
          'gpt-4o-transcribe',
          'gpt-transcribe',
          'gpt-live-transcribe',
          'fixture-echo',
          'pocketsphinx',
          'sherpa-onnx',
          'silero-vad',
          'nope',
          '',
          '../x',
          'whisper-1\u0000',
        ]),
      )
    if (rng.chance(0.3))
      field('response_format', rng.pick(['json', 'text', 'srt', 'verbose_json', 'vtt', 'xml', '']))
    if (rng.chance(0.2)) field('temperature', rng.pick(['0', '1', '-1', 'abc', '1e999', '0.2']))
    if (rng.chance(0.2)) field('timestamp_granularities[]', rng.pick(['word', 'segment', 'char', '']))
    if (rng.chance(0.2)) field('language', rng.pick(['en', 'xx', '', 'english']))
    if (rng.chance(0.15)) field('prompt', hostileString(rng, 300_000))
    openAiCurrentFields(rng, field)
  }
  if (route === '/v1/dictate' && rng.chance(0.5)) field('appName', hostileString(rng, 1500))
  if (rng.chance(0.05)) for (let i = 0; i < 70; i++) field(`f${i}`, 'x')
  const end = rng.chance(0.9) ? Buffer.from(`--${boundary}--\r\n`) : Buffer.alloc(0)
  let body = Buffer.concat([...parts, end])
  if (rng.chance(0.1)) body = body.subarray(0, rng.int(0, body.length))
  if (rng.chance(0.05)) body = Buffer.concat([Buffer.from('garbage before\r\n'), body])
  const contentType = rng.pick([
    `multipart/form-data; boundary=${boundary}`,
    `multipart/form-data; boundary=${boundary}`,
    `multipart/form-data; boundary=${boundary}`,
    `multipart/form-data; boundary="${boundary}"`,
    'multipart/form-data',
    'multipart/form-data; boundary=',
    `multipart/form-data; boundary=other`,
    `multipart/mixed; boundary=${boundary}`,
  ])
  return { contentType, body }
}

/** An OpenAI audio request every route of that family serves: the fixture clip as `file`, `whisper-1`. */
function validOpenAiForm(): { contentType: string; body: Buffer } {
  const boundary = '----fuzzvalid'
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
    ),
    WAV,
    Buffer.from(
      `\r\n--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--${boundary}--\r\n`,
    ),
  ])
  return { contentType: `multipart/form-data; boundary=${boundary}`, body }
}

/** A body for `route` (`METHOD /template`) and the content type it is sent with. */
function bodyFor(rng: Prng, payloads: Payloads, route: Route): { contentType?: string; body?: Buffer } {
  const json = (value: unknown) => ({ contentType: 'application/json', body: Buffer.from(toJson(value)) })
  const key = `${route.method} ${route.path}`
  const roll = rng.next()
  // Generic hostility for any route: a tenth of the requests.
  if (roll < 0.1) return genericBody(rng, payloads, AUDIO_ROUTES.has(route.path))
  switch (key) {
    case 'POST /v1/dictionary/replacements':
      if (rng.chance(0.08)) return { contentType: 'application/json', body: payloads.longRules }
      return json(replacementsBody(rng, payloads))
    case 'POST /v1/dictionary/custom-words':
      return json(customWordsBody(rng, payloads))
    case 'PATCH /v1/dictionary/replacements/{id}':
      return json(entryPatchBody(rng, payloads, false))
    case 'PATCH /v1/dictionary/custom-words/{id}':
      return json(entryPatchBody(rng, payloads, true))
    case 'PATCH /v1/settings':
      return json(settingsBody(rng, payloads))
    case 'POST /v1/history/{id}/correction': {
      // The text the user kept: valid most of the time (the entry stores it), bent otherwise.
      const valid = { text: rng.pick(['word one', 'word  two.', 'Ünïcode wörds']) }
      return json(rng.chance(0.6) ? valid : mutate(rng, valid, payloads, 1000))
    }
    case 'POST /v1/jobs': {
      // A fixed idempotency key: a valid submission answers the job the test made (200), not a new one.
      const valid = {
        path: FIXTURE_WAV,
        formats: ['json', 'text', 'srt', 'vtt', 'verbose_json'],
        priority: 0,
        idempotencyKey: 'fuzz',
      }
      return json(rng.chance(0.3) ? valid : mutate(rng, valid, payloads, 1000))
    }
    case 'POST /v1/postprocess':
      if (rng.chance(0.3))
        return {
          contentType: rng.pick(['text/plain', 'text/plain; charset=latin1', 'text/markdown']),
          body: Buffer.from(hostileString(rng, 5000)),
        }
      if (rng.chance(0.05))
        return { contentType: 'text/plain', body: Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x80]) }
      return json(mutate(rng, { text: hostileString(rng, 5000) }, payloads, 5000))
    case 'POST /v1/transcribe':
    case 'POST /v1/dictate': {
      const mode = rng.next()
      if (mode < 0.005) return { contentType: 'application/json', body: payloads.nestedAudioJson }
      if (mode < 0.01) return { contentType: 'application/json', body: payloads.longAudioJson }
      if (mode < 0.5) return json(audioJson(rng, payloads, route.path))
      if (mode < 0.85)
        return {
          contentType: rng.pick([
            'audio/wav',
            'audio/x-wav',
            'application/octet-stream',
            'audio/mpeg',
            'video/mp4',
            'audio/L16',
            'text/plain',
          ]),
          body: audioBytes(rng),
        }
      return multipart(rng, route.path)
    }
    case 'POST /v1/audio/transcriptions':
    case 'POST /v1/audio/translations':
      // A share of plain valid requests: with the many optional fields each drawn at random, a short run on a
      // busy machine could otherwise send none the route serves (as POST /v1/jobs keeps a valid share).
      if (rng.chance(0.15)) return validOpenAiForm()
      if (rng.chance(0.1)) return json(audioJson(rng, payloads, route.path))
      return multipart(rng, route.path)
  }
  // GET routes: usually no body, now and then one anyway.
  if (rng.chance(0.1)) return json(hostileValue(rng, payloads, 500))
  return {}
}

/** A body that is wrong for any route: broken JSON, wrong content types, deep nesting, scalars. */
function genericBody(rng: Prng, payloads: Payloads, audio: boolean): { contentType?: string; body?: Buffer } {
  const contentType = rng.pick([
    'application/json',
    'application/json',
    'application/json; charset=utf-16',
    'application/json;;;',
    'APPLICATION/JSON',
    'application/jsonx',
    'application/vnd.api+json',
    'application/xml',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
    '',
    'x',
    '*/*',
  ])
  switch (rng.int(0, 11)) {
    case 0:
      return { contentType, body: Buffer.alloc(0) }
    case 1:
      return {
        contentType,
        body: Buffer.from(
          rng.pick([
            '{',
            '{"a":',
            '[1,2',
            '{"text": "unterminated',
            '{"a":1}}',
            'nul\u0000l',
            '{"a":01}',
            "{'a':1}",
            '{"a":NaN}',
            '\ufeff{}',
          ]),
        ),
      }
    case 2:
      return {
        contentType,
        body: Buffer.from(rng.pick(['null', '1e999', '"string"', 'true', '[]', '-0', '0', '{}', '[{}]'])),
      }
    case 3:
      return {
        contentType,
        body:
          audio && rng.chance(0.05)
            ? payloads.nestedAudioJson
            : payloads.nestedSmallJson.subarray(0, rng.length(payloads.nestedSmallJson.length)),
      }
    case 4:
      return { contentType, body: Buffer.from('{"a":{"b":{"c":{"d":{"e":[[[[[[1]]]]]]}}}}}') }
    case 5:
      return { contentType, body: rng.bytes(rng.int(1, 3000)) }
    case 6:
      return { contentType, body: Buffer.from('{"text":"\\ud800","path":"\\u0000","triggers":["\\udfff"]}') }
    case 7:
      return { contentType, body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) }
    case 8:
      return {
        contentType,
        body: Buffer.from(toJson({ text: payloads.longText, path: payloads.longText.slice(0, 5000) })),
      }
    case 9:
      return {
        contentType,
        body: Buffer.from(`{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}`),
      }
    case 10:
      return { contentType, body: Buffer.from(`[${'1e999,'.repeat(rng.length(20_000))}1]`) }
    default:
      return { contentType, body: Buffer.from(toJson(hostileValue(rng, payloads, 2000))) }
  }
}

/** Query parameters the history routes, the pull and the delete-all read, with values that work. */
function routeQuery(rng: Prng, route: Route): string | null {
  const key = `${route.method} ${route.path}`
  // Rare: a confirmed delete-all empties the history the by-id deletes look into.
  if (key === 'DELETE /v1/history') return rng.chance(0.25) ? '?confirm=true' : null
  if ((key === 'GET /v1/history' || key === 'GET /v1/history/export') && rng.chance(0.4)) {
    const pairs = [
      rng.chance(0.5) ? `q=${rng.pick(['word', 'e-mail', 'HEARD', '%C3%A9', '%25', '_'])}` : '',
      rng.chance(0.3) ? `app=${rng.pick(['Mail', 'fuzz', ''])}` : '',
      rng.chance(0.3) ? `from=${rng.pick(['2020-01-01', '2026-01-01T00:00:00Z', 'yesterday'])}` : '',
      rng.chance(0.3) ? `to=${rng.pick(['2100-01-01', '2000-01-01T00:00:00%2B02:00', '2020-13-01'])}` : '',
      rng.chance(0.2) ? `cursor=${rng.pick(['MTcwMDAwMDAwMDAwMC4xMA', 'bm9wZQ', '!!'])}` : '',
      rng.chance(0.3) ? `limit=${rng.pick(['1', '5', '1000'])}` : '',
      rng.chance(0.5) ? `format=${rng.pick(['json', 'csv', 'md', 'xml'])}` : '',
    ].filter((pair) => pair !== '')
    return `?${pairs.join('&')}`
  }
  if (key === 'POST /v1/models/{id}/pull' && rng.chance(0.2))
    return `?force=${rng.pick(['true', 'false', '1'])}`
  return null
}

function query(rng: Prng, route: Route): string {
  const own = routeQuery(rng, route)
  if (own !== null) return own
  if (!rng.chance(0.3)) return ''
  const pairs: string[] = []
  for (let i = rng.int(1, 4); i > 0; i--) {
    const name = rng.pick([
      'limit',
      'verbose',
      'limit',
      'verbose',
      '__proto__[x]',
      'constructor[prototype][y]',
      'a[b][c]',
      'model',
      '',
      '%zz',
      '%00',
      'x'.repeat(rng.length(4000)),
    ])
    const value = rng.pick([
      '1',
      '0',
      '-1',
      '1000',
      '1001',
      'true',
      'false',
      'yes',
      '1e999',
      'NaN',
      '',
      '%ff',
      '%00',
      '%2e%2e',
      'a'.repeat(rng.length(6000)),
      '[]',
      '{}',
    ])
    pairs.push(rng.chance(0.1) ? name : `${name}=${value}`)
  }
  return `?${pairs.join(rng.chance(0.9) ? '&' : ';')}`
}

/** The path of `route` with its parameters filled in, or a variant that should not match. */
function pathFor(rng: Prng, route: Route): string {
  const known = route.path.startsWith('/v1/dictionary/replacements/')
    ? FUZZ_IDS.rules
    : route.path.startsWith('/v1/dictionary/custom-words/')
      ? FUZZ_IDS.words
      : route.path.startsWith('/v1/history/')
        ? FUZZ_IDS.history
        : route.path.endsWith('/pull')
          ? [FUZZ_IDS.model, FUZZ_IDS.model, 'silero-vad']
          : route.path.startsWith('/v1/jobs/')
            ? FUZZ_IDS.jobs
            : []
  const filled = route.path.replace(/\{[^}]+\}/g, (param) =>
    (param === '{format}' ? RESULT_FORMATS : known).length > 0 && rng.chance(0.6)
      ? rng.pick(param === '{format}' ? RESULT_FORMATS : known)
      : rng.pick([
          'whisper-1',
          'fixture-echo',
          'pocketsphinx',
          'nope',
          '%00',
          '%2e%2e',
          '..',
          'a'.repeat(rng.length(3000)),
          '%F0%9F%98%80',
          'silero-vad',
          '%ff',
          'x%2Fy',
        ]),
  )
  if (rng.chance(0.85)) return filled
  return rng.pick([
    `${filled}/`,
    filled.toUpperCase(),
    `/${filled}`,
    `${filled}//`,
    filled.replace('/v1/', '/v1/../v1/'),
    filled.replace('/v1/', '/v1/%2e%2e/v1/'),
    `${filled}/extra`,
    filled.replace('/v1', '/v2'),
    `${filled}%00`,
    `${filled}.json`,
  ])
}

function headerValue(rng: Prng, name: string, port: number, token: string): string | undefined {
  switch (name) {
    case 'host':
      if (rng.chance(0.9)) return rng.pick([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`])
      return rng.pick([
        'evil.example',
        '',
        'localhost:abc',
        '[::1',
        '127.0.0.1.',
        'LOCALHOST',
        'a.localhost',
        '127.0.0.256',
        '127.1',
        '0.0.0.0',
        'localhost.evil.example',
        'x'.repeat(3000),
      ])
    case 'origin':
      if (rng.chance(0.85)) return undefined
      return rng.pick([
        'http://localhost:3000',
        'http://127.0.0.1',
        'null',
        'http://evil.example',
        'file://',
        'garbage',
        'http://127.0.0.1.evil.example',
        'https://[::1]:1',
        'chrome-extension://abc',
        '',
      ])
    case 'authorization':
      if (rng.chance(0.9)) return `Bearer ${token}`
      return rng.pick([
        undefined,
        'Bearer wrong',
        'Bearer ',
        `bearer ${token}`,
        `Basic ${Buffer.from(`u:${token}`).toString('base64')}`,
        `Bearer ${token}x`,
        `Bearer ${'a'.repeat(5000)}`,
        `Bearer  ${token} `,
      ])
    case 'x-filename':
      return rng.chance(0.3) ? audioFilename(rng) : undefined
    case 'x-app-name':
    case 'x-window-title':
      if (!rng.chance(0.3)) return undefined
      return rng.pick([
        'Mail',
        '',
        'x'.repeat(1024),
        'x'.repeat(1025),
        'y'.repeat(rng.length(12_000)),
        'caf\u00e9',
      ])
    case 'accept':
      return rng.chance(0.15)
        ? rng.pick(['application/xml', '*/*', 'text/html', '', 'x'.repeat(2000), 'text/event-stream'])
        : undefined
    case 'accept-encoding':
      return rng.chance(0.1) ? rng.pick(['gzip', 'br', 'identity;q=0', '*;q=0', 'x']) : undefined
    case 'expect':
      return rng.chance(0.02) ? rng.pick(['100-continue', 'something-else']) : undefined
  }
  return undefined
}

const HEADER_NAMES = [
  'host',
  'origin',
  'authorization',
  'x-filename',
  'x-app-name',
  'x-window-title',
  'accept',
  'accept-encoding',
  'expect',
]

/** The next request of the run. `routes` come from the app's OpenAPI document. */
export function nextRequest(
  rng: Prng,
  routes: readonly Route[],
  payloads: Payloads,
  port: number,
): FuzzRequest {
  const aimed: Route = rng.chance(0.03)
    ? {
        method: 'GET',
        path: rng.pick([
          '/v1/docs',
          '/v1/docs/static/index.html',
          '/v1/docs/json',
          '/v1/docs/static/../../../package.json',
          '/v1/nope',
          '/',
          '*',
          '/favicon.ico',
        ]),
      }
    : rng.pick(routes)
  const method = rng.chance(0.85) ? aimed.method : rng.chance(0.7) ? rng.pick(METHODS) : rng.pick(ODD_METHODS)
  const label = `${method} ${routes.includes(aimed) ? aimed.path : '?'}`
  const { contentType, body } = method === 'GET' && !rng.chance(0.05) ? {} : bodyFor(rng, payloads, aimed)
  const headers: Array<[string, string]> = []
  for (const name of HEADER_NAMES) {
    const value = headerValue(rng, name, port, payloads.token)
    if (value !== undefined) headers.push([name, value])
  }
  if (contentType !== undefined && (contentType !== '' || rng.chance(0.5)))
    headers.push(['content-type', contentType])
  const target = `${pathFor(rng, aimed)}${query(rng, aimed)}`
  const request: FuzzRequest = {
    label,
    method,
    target,
    headers,
    body,
    raw: undefined,
    incomplete: false,
  }
  if (rng.chance(0.12)) rawFraming(rng, request)
  return request
}

/**
 * Sound requests (clean headers, a valid body), one per route whose random requests seldom pass all its
 * checks: measured over 7 runs of 1,500 requests, these got 0 to 13 answers in 2xx each (the audio, a
 * dictation's app name and window title, an OpenAI form's many optional fields, a settings patch…), so a
 * short run could end with none (a run of the whole suite did, for `POST /v1/audio/translations`), and the run is to show each route served as well as refused. The run sends
 * them before the random ones; `DELETE /v1/history` last (it empties the history the routes by id act on).
 */
export function soundRequests(token: string, port: number): { first: FuzzRequest[]; last: FuzzRequest[] } {
  const sound = (
    method: string,
    path: string,
    body?: { contentType: string; body: Buffer },
  ): FuzzRequest => ({
    label: `${method} ${path}`,
    method,
    target: path,
    headers: [
      ['host', `127.0.0.1:${port}`],
      ['authorization', `Bearer ${token}`],
      ...(body ? [['content-type', body.contentType] as [string, string]] : []),
    ],
    body: body?.body,
    raw: undefined,
    incomplete: false,
  })
  const json = (value: unknown) => ({
    contentType: 'application/json',
    body: Buffer.from(JSON.stringify(value)),
  })
  return {
    first: [
      sound('POST', '/v1/transcribe', json({ path: FIXTURE_WAV })),
      sound('POST', '/v1/dictate', json({ path: FIXTURE_WAV })),
      sound('POST', '/v1/audio/transcriptions', validOpenAiForm()),
      sound('POST', '/v1/audio/translations', validOpenAiForm()),
      sound('PATCH', '/v1/settings', json({ history: { enabled: true } })),
      sound('POST', '/v1/dictionary/replacements', json({ triggers: ['heard'], replacement: 'Heard' })),
      sound('POST', '/v1/dictionary/custom-words', json({ text: 'Grafana' })),
    ],
    last: [sound('DELETE', '/v1/history')],
  }
}

/**
 * Turns `request` into raw bytes with framing Node's client would not produce: lying or duplicated
 * Content-Length, broken chunked encoding, bytes outside ASCII in headers or path, odd request lines.
 */
function rawFraming(rng: Prng, request: FuzzRequest): void {
  const body = request.body ?? Buffer.alloc(0)
  let requestLine = `${request.method} ${request.target} HTTP/1.1`
  const headers = request.headers.filter(
    ([name]) => name !== 'content-length' && name !== 'transfer-encoding',
  )
  let framing: string[] = [`Content-Length: ${body.length}`]
  let payload: Buffer = body
  switch (rng.int(0, 11)) {
    case 0:
      framing = [`Content-Length: ${body.length + rng.int(1, 1000)}`]
      request.incomplete = true
      break
    case 1:
      framing = [`Content-Length: ${Math.max(0, body.length - rng.int(1, 10))}`]
      break
    case 2:
      framing = [`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`]
      break
    case 3:
      framing = ['Transfer-Encoding: chunked']
      payload = Buffer.concat([
        Buffer.from(`${body.length.toString(16)}\r\n`),
        body,
        Buffer.from('\r\n0\r\n\r\n'),
      ])
      break
    case 4:
      framing = ['Transfer-Encoding: chunked']
      payload = Buffer.from(
        rng.pick([
          'zz\r\nabc\r\n0\r\n\r\n',
          'ffffffffffffffff\r\nabc\r\n0\r\n\r\n',
          '3\r\nabcdef\r\n0\r\n\r\n',
          '-1\r\n\r\n',
        ]),
      )
      // A chunk longer than what follows leaves the body unfinished.
      request.incomplete = true
      break
    case 5:
      framing = ['Transfer-Encoding: chunked', `Content-Length: ${body.length}`]
      payload = Buffer.concat([
        Buffer.from(`${body.length.toString(16)}\r\n`),
        body,
        Buffer.from('\r\n0\r\n\r\n'),
      ])
      break
    case 6:
      headers.push(
        ['x-app-name', rng.pick(['caf\u00e9 \u00ff', 'tab\there', 'a\u0000b'])],
        ['x-filename', 'r\u00e9sum\u00e9.wav'],
      )
      break
    case 7:
      requestLine = rng.pick([
        `${request.method} ${request.target} HTTP/1.0`,
        `${request.method} ${request.target} HTTP/2.0`,
        `${request.method} http://evil.example${request.target} HTTP/1.1`,
        `${request.method} ${request.target}\u00e9 HTTP/1.1`,
        `${request.method}  ${request.target} HTTP/1.1`,
        `${request.method} ${request.target}`,
        `CONNECT 127.0.0.1:1 HTTP/1.1`,
      ])
      break
    case 8:
      headers.push(['host', 'second.example'])
      break
    case 9:
      headers.push(['x-header-with-a-very-long-value', 'v'.repeat(rng.pick([100, 8000, 17_000]))])
      break
    case 10:
      framing = [`Content-Length: ${rng.pick(['-1', 'abc', '1e3', '99999999999999999999', ' 5'])}`]
      request.incomplete = true
      break
    default:
      break
  }
  const head = [
    requestLine,
    ...headers.map(([n, v]) => `${n}: ${v}`),
    ...framing,
    'Connection: close',
    '',
    '',
  ]
  request.raw = Buffer.concat([Buffer.from(head.join('\r\n'), 'latin1'), payload])
  if (request.method === 'CONNECT' || requestLine.startsWith('CONNECT')) request.incomplete = true
}

/** The large payloads, built before the run. */
export function buildPayloads(token: string): Payloads {
  const longWav = shortWav(240)
  return {
    token,
    nestedAudioJson: Buffer.from(`{"audioBase64": ${'['.repeat(12_000_000)}${']'.repeat(12_000_000)}}`),
    nestedSmallJson: Buffer.from(`${'['.repeat(500_000)}${']'.repeat(500_000)}`),
    longRules: Buffer.from(JSON.stringify({ mode: 'replace', entries: longReplacementRules(1000, 20, 3) })),
    longAudioJson: Buffer.from(JSON.stringify({ audioBase64: longWav.toString('base64'), appName: 'fuzz' })),
    longText: 'lorem ipsum e-mail wi-fi '.repeat(36_000),
  }
}

/** The fields of OpenAI's current API (issue 24): keywords, languages, include, chunking, diarization. */
function openAiCurrentFields(rng: Prng, field: (name: string, value: string) => void): void {
  if (rng.chance(0.2)) {
    const count = rng.chance(0.1) ? 150 : rng.int(1, 4)
    for (let i = 0; i < count; i++)
      field(
        rng.pick(['keywords[]', 'keywords']),
        rng.pick(['Kubernetes', 'New York', '<b>', 'a\r\nb', '', 'x'.repeat(300), hostileString(rng, 200)]),
      )
  }
  if (rng.chance(0.15))
    for (let i = rng.int(1, 3); i > 0; i--) field('languages[]', rng.pick(['en', 'fr', 'xx', '', 'english']))
  if (rng.chance(0.15)) field('include[]', rng.pick(['logprobs', 'logprobs', 'tokens', '']))
  if (rng.chance(0.15))
    field(
      'chunking_strategy',
      rng.pick(['auto', 'null', '', '{"type":"server_vad","threshold":0.4}', '{', '[]']),
    )
  if (rng.chance(0.1)) {
    field('chunking_strategy[type]', rng.pick(['server_vad', 'semantic_vad', '']))
    field(
      rng.pick([
        'chunking_strategy[threshold]',
        'chunking_strategy[silence_duration_ms]',
        'chunking_strategy[x]',
      ]),
      rng.pick(['0.5', '-1', '1e999', 'abc', '300']),
    )
  }
  if (rng.chance(0.05)) field('known_speaker_names[]', 'agent')
  if (rng.chance(0.05)) field('response_format', 'diarized_json')
}
