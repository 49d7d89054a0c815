/**
 * The official `openai` npm client against dictum over real HTTP, with the real pocketsphinx engine: every
 * response format on the shared clips, subtitles that parse with increasing times, the model list, and
 * errors surfacing as the client's own exception classes.
 */
import { createReadStream, existsSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import OpenAI from 'openai'
import t, { type Test } from 'tap'
import type { DictumApp } from '../../../server/app.ts'
import { audioFixturesDir, readClip, referenceClips } from '../../engines/pocketsphinx/clips.ts'
import { build, sharedApp, tempDir } from '../../helpers/build.ts'
import { listen } from '../../helpers/http.ts'
import { clipsWithPauses } from '../../helpers/wav.ts'
import { corpusWordErrorRate, normaliseWords, wordErrorRate } from '../../helpers/wer.ts'
import { parseSrt, parseVtt } from './subtitle-parse.ts'

const installed = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')
const skip = installed ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)'
const JFK = path.join(audioFixturesDir, 'jfk.wav')

/** The file's pocketsphinx service, shared by the subtests that need no other config (the model loads once). */
const pocketsphinxApp = sharedApp(t, { speech: { engine: 'pocketsphinx' } })

async function dictumClient(t: Test, overrides?: Record<string, unknown>) {
  let app: DictumApp
  let port: number
  if (overrides === undefined) ({ app, port } = await pocketsphinxApp())
  else {
    app = await build(t, { speech: { engine: 'pocketsphinx' }, ...overrides })
    port = await listen(t, app)
  }
  return {
    app,
    port,
    client: (apiKey = 'x') => new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey, maxRetries: 0 }),
  }
}

// Three short clips of different speakers, each through the client's default format (json); the first also
// through the other four (each format is a recognition of its own). The WER of every clip through HTTP is
// test/routes/transcribe/pocketsphinx-http.test.ts's job.
const CLIENT_CLIPS = ['goforward.wav', 'librispeech-1089-134686-0001.wav', 'librivox-austen-0880.wav']

t.test('every response format through the openai client, on three shared clips', { skip }, async (t) => {
  const { client } = await dictumClient(t)
  const openai = client()
  const pairs: { reference: string; hypothesis: string }[] = []
  const clips = referenceClips().filter((clip) => CLIENT_CLIPS.includes(clip.file))
  t.equal(clips.length, CLIENT_CLIPS.length, 'the clips are in refs.tsv')
  for (const clip of clips) {
    const json = await openai.audio.transcriptions.create({
      file: createReadStream(clip.path),
      model: 'whisper-1',
    })
    t.type(json.text, 'string', `${clip.file}: json has text`)
    pairs.push({ reference: clip.reference, hypothesis: json.text })
  }
  const wer = corpusWordErrorRate(pairs)
  t.comment(`pocketsphinx through /v1/audio/transcriptions: corpus WER ${wer.toFixed(3)}`)
  t.ok(wer < 0.5, 'real recognition, not noise')

  const [clip] = clips as [(typeof clips)[0]]
  const json = pairs[0]!.hypothesis
  const file = () => createReadStream(clip.path)
  const text = await openai.audio.transcriptions.create({
    file: file(),
    model: 'whisper-1',
    response_format: 'text',
  })
  const verbose = await openai.audio.transcriptions.create({
    file: file(),
    model: 'whisper-1',
    response_format: 'verbose_json',
    timestamp_granularities: ['word', 'segment'],
  })
  const srt = await openai.audio.transcriptions.create({
    file: file(),
    model: 'whisper-1',
    response_format: 'srt',
  })
  const vtt = await openai.audio.transcriptions.create({
    file: file(),
    model: 'whisper-1',
    response_format: 'vtt',
  })
  // Five requests are five recognitions of the same clip, each on its own: every format carries the same
  // words.
  const close = (other: string, what: string) =>
    t.equal(wordErrorRate(json, other), 0, `${clip.file}: ${what} carries the transcript`)
  close(String(text), 'text')
  t.ok(String(text).endsWith('\n'), 'text ends with a newline, as OpenAI sends it')
  close(verbose.text, 'verbose_json')
  t.ok(verbose.duration > 0 && (verbose.segments?.length ?? 0) > 0, `${clip.file}: duration and segments`)
  const words = verbose.words!.map((w) => w.word).join(' ')
  t.same(normaliseWords(words), normaliseWords(verbose.text), 'verbose_json words spell its text')
  close(
    parseSrt(String(srt))
      .map((c) => c.text)
      .join(' '),
    'srt',
  )
  close(
    parseVtt(String(vtt))
      .map((c) => c.text)
      .join(' '),
    'vtt',
  )
  // Both come from the same cues, so what the long recording shows for srt below holds for vtt too.
  t.same(
    parseVtt(String(vtt)).map((c) => [c.start, c.end, c.text]),
    parseSrt(String(srt)).map((c) => [c.start, c.end, c.text]),
    `${clip.file}: vtt and srt have the same cues`,
  )
})

t.test('srt subtitles of a long recording: several cues whose times increase', { skip }, async (t) => {
  const { client } = await dictumClient(t)
  // Long enough for several cues, and no longer (20 s, a third of the minute-long recording this used):
  // jfk's 11 s of speech without a long pause, which cues must cut (at 7 s and 84 characters), and two
  // short clips, 1.2 s of silence around each.
  const names = ['jfk.wav', 'cards-001.wav', 'goforward.wav']
  const clips = await Promise.all(names.map((name) => readClip(path.join(audioFixturesDir, name))))
  const long = path.join(tempDir(t), 'long.wav')
  writeFileSync(long, clipsWithPauses(clips, 1.2))
  const seconds =
    (clips.reduce((sum, clip) => sum + clip.length, 0) + (names.length + 1) * 1.2 * 16000) / 16000
  const srt = String(
    await client().audio.transcriptions.create({
      file: createReadStream(long),
      model: 'whisper-1',
      response_format: 'srt',
    }),
  )
  const cues = parseSrt(srt)
  t.ok(cues.length >= 3, `${cues.length} cues`)
  for (const [i, cue] of cues.entries()) {
    t.ok(cue.end >= cue.start, `cue ${i + 1} ends after it starts`)
    if (i > 0) t.ok(cue.start >= cues[i - 1]!.end, `cue ${i + 1} starts after cue ${i} ends`)
    t.ok(cue.end - cue.start <= 7.05 || !cue.text.includes(' '), `cue ${i + 1} is short enough to read`)
  }
  t.ok(cues.at(-1)!.end <= seconds + 0.05, 'within the recording')
})

t.test('models.list and models.retrieve through the client', { skip }, async (t) => {
  const { client } = await dictumClient(t)
  const models = await client().models.list()
  const ids = models.data.map((m) => m.id)
  t.ok(ids.includes('pocketsphinx') && ids.includes('remote'), 'engines are listed')
  t.ok(ids.includes('vosk-model-small-en-us-0.15'), 'catalog models are listed')
  for (const model of models.data) {
    t.equal(model.object, 'model')
    t.equal(model.owned_by, 'dictum')
    if (!Number.isInteger(model.created)) t.fail(`created of ${model.id} is an integer`)
  }
  const engine = (await client().models.retrieve('pocketsphinx')) as unknown as Record<string, unknown>
  t.match(engine, { id: 'pocketsphinx', kind: 'engine', active: true, displayName: 'PocketSphinx (en-US)' })
  const missing = await client()
    .models.retrieve('no-such-model')
    .catch((e: unknown) => e)
  t.ok(missing instanceof OpenAI.NotFoundError, 'an unknown id is a NotFoundError')
})

t.test('errors arrive as the client exception classes, in OpenAI shape', { skip }, async (t) => {
  const { client } = await dictumClient(t, { api: { token: 'secret-token' } })
  const create = (apiKey: string, extra = {}) =>
    client(apiKey).audio.transcriptions.create({ file: createReadStream(JFK), model: 'whisper-1', ...extra })
  const unauthorized = await create('wrong').catch((e: unknown) => e)
  t.ok(unauthorized instanceof OpenAI.AuthenticationError, '401 without the token as apiKey')
  t.match((unauthorized as InstanceType<typeof OpenAI.APIError>).error, {
    message: 'Unauthorized: a valid bearer token is required.',
    type: 'invalid_request_error',
    code: 'unauthorized',
  })
  const bad = await create('secret-token', { response_format: 'mp4' }).catch((e: unknown) => e)
  t.ok(bad instanceof OpenAI.BadRequestError, '400 for an unknown response_format')
  t.match((bad as InstanceType<typeof OpenAI.APIError>).error, { param: 'response_format' })
  const ok = await create('secret-token')
  t.match(ok.text, /country/, 'the token as apiKey is accepted')
})
