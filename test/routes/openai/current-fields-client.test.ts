/**
 * OpenAI's current transcription API (the `openai` 7.x SDK) against a real dictum over HTTP, with the real
 * pocketsphinx engine on the repo's clips: gpt-transcribe, keywords, languages, include[]=logprobs,
 * chunking_strategy, translations and diarization, each as docs/openai-api.md's table says.
 */
import { createReadStream, existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import OpenAI from 'openai'
import t, { type Test } from 'tap'
import { AudioDecoder } from '../../../audio/index.ts'
import { resolveConfig } from '../../../config/load.ts'
import type { DictumApp } from '../../../server/app.ts'
import { ConfigSchema } from '../../../server/config-schema.ts'
import { bundledVadModel } from '../../../vad/service.ts'
import { VadSegmenter } from '../../../vad/vad-segmenter.ts'
import { audioFixturesDir } from '../../engines/pocketsphinx/clips.ts'
import { startTranscriptionServer } from '../../engines/remote/transcription-server.ts'
import { build, injectJson, sharedApp, tempDir } from '../../helpers/build.ts'
import { listen } from '../../helpers/http.ts'

const installed = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')
const skip = installed ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)'
const JFK = path.join(audioFixturesDir, 'jfk.wav')
const BELLY = path.join(audioFixturesDir, 'librispeech-1089-134686-0001.wav')
// Recognition is not the subject here: where pocketsphinx transcribes, the shortest clips that show the
// point (jfk's 11 s cost a good part of a second each time on a loaded machine).
const GOFORWARD = path.join(audioFixturesDir, 'goforward.wav')

/** The file's pocketsphinx service, shared by the subtests that need no other config (the model loads once). */
const pocketsphinxApp = sharedApp(t, { speech: { engine: 'pocketsphinx' } })

async function dictum(t: Test, overrides?: Record<string, unknown>) {
  let app: DictumApp
  let port: number
  if (overrides === undefined) ({ app, port } = await pocketsphinxApp())
  else {
    app = await build(t, { speech: { engine: 'pocketsphinx' }, ...overrides })
    port = await listen(t, app)
  }
  return { app, openai: new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'x', maxRetries: 0 }) }
}

/** The SDK's error for a request that must fail, so its status and body can be checked. */
async function refused(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await promise
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error
    throw error
  }
  throw new Error('the request succeeded')
}

t.test('gpt-transcribe and the other current names: transcribed and listed', { skip }, async (t) => {
  const { openai } = await dictum(t)
  const json = await openai.audio.transcriptions.create({
    file: createReadStream(GOFORWARD),
    model: 'gpt-transcribe',
  })
  t.match(json.text, /forward ten/, json.text)
  t.same(json.languages, [{ code: 'en' }], "the engine's only language is the transcript's")
  const ids = []
  for await (const model of openai.models.list()) ids.push(model.id)
  for (const id of ['gpt-transcribe', 'gpt-live-transcribe', 'gpt-realtime-whisper']) {
    t.ok(ids.includes(id), `GET /v1/models lists ${id}`)
    const one = (await openai.models.retrieve(id)) as unknown as { kind: string; engine: string }
    t.same([one.kind, one.engine], ['openai', 'pocketsphinx'], `${id} is the selected engine`)
  }
})

t.test(
  'keywords change the transcript for that request only; the dictionary is unchanged',
  { skip },
  async (t) => {
    const { app, openai } = await dictum(t)
    const before = await injectJson(app, 'GET', '/v1/dictionary/custom-words')
    const plain = await openai.audio.transcriptions.create({
      file: createReadStream(BELLY),
      model: 'gpt-transcribe',
    })
    t.notMatch(plain.text, /counselled/i, `pocketsphinx alone: ${plain.text}`)
    const guided = await openai.audio.transcriptions
      .create({ file: createReadStream(BELLY), model: 'gpt-transcribe', keywords: ['counselled'] })
      .withResponse()
    t.match(guided.data.text, /\bcounselled\b/i, `with keywords: ${guided.data.text}`)
    t.equal(guided.response.headers.get('x-dictum-not-applied'), null, 'applied: no header')
    const after = await injectJson(app, 'GET', '/v1/dictionary/custom-words')
    t.same(after.body, before.body, 'the stored dictionary is as it was')
    const again = await openai.audio.transcriptions.create({
      file: createReadStream(BELLY),
      model: 'gpt-transcribe',
    })
    t.equal(again.text, plain.text, 'the next request without keywords is as before')
  },
)

t.test('keywords are checked as OpenAI checks them', { skip }, async (t) => {
  const { openai } = await dictum(t)
  const send = (keywords: string[]) =>
    refused(
      openai.audio.transcriptions.create({ file: createReadStream(JFK), model: 'gpt-transcribe', keywords }),
    )
  for (const bad of ['<b>Kubernetes</b>', 'New\nYork', 'a\rb']) {
    const error = await send(['fine', bad])
    t.equal(error.status, 400, JSON.stringify(bad))
    t.match(error.message, /keywords\[1\]/, 'the message names the entry')
    t.equal((error.error as { param?: string }).param, 'keywords')
  }
  t.match((await send(['x'.repeat(101)])).message, /longer than 100/)
  t.match((await send(Array.from({ length: 101 }, (_, i) => `w${i}`))).message, /at most 100/)
})

t.test('keywords on an engine without custom words: accepted, reported as not applied', async (t) => {
  const { openai } = await dictum(t, { speech: { engine: 'fixture-echo' } })
  const { data, response } = await openai.audio.transcriptions
    .create({ file: createReadStream(JFK), model: 'gpt-transcribe', keywords: ['Kubernetes'] })
    .withResponse()
  t.match(data.text, /^heard \d+ samples$/)
  t.equal(response.headers.get('x-dictum-not-applied'), 'keywords')
})

t.test('languages: honoured when the engine has one, refused otherwise', { skip }, async (t) => {
  const { openai } = await dictum(t)
  const file = () => createReadStream(GOFORWARD)
  const json = await openai.audio.transcriptions.create({
    file: file(),
    model: 'gpt-transcribe',
    languages: ['fr', 'en'],
  })
  t.match(json.text, /forward/)
  t.same(json.languages, [{ code: 'en' }])
  const verbose = await openai.audio.transcriptions.create({
    file: file(),
    model: 'gpt-transcribe',
    languages: ['en'],
    response_format: 'verbose_json',
  })
  t.same(
    (verbose as unknown as { languages: unknown }).languages,
    [{ code: 'en' }],
    'verbose_json has them too',
  )
  const none = await refused(
    openai.audio.transcriptions.create({ file: file(), model: 'gpt-transcribe', languages: ['fr', 'de'] }),
  )
  t.equal(none.status, 400)
  t.match(none.message, /fr, de.*it does: en/, none.message)
  t.equal((none.error as { param?: string }).param, 'languages')
  const both = await refused(
    openai.audio.transcriptions.create({
      file: file(),
      model: 'gpt-transcribe',
      language: 'en',
      languages: ['en'],
    }),
  )
  t.equal(both.status, 400)
  t.match(both.message, /either language or languages/)
})

t.test('an engine that cannot tell the language answers languages: []', async (t) => {
  const { openai } = await dictum(t, {
    speech: { engine: 'fixture-echo' },
    plugins: [path.resolve(import.meta.dirname, '../../fixtures/plugins/good-engine.ts')],
  })
  const json = await openai.audio.transcriptions.create({
    file: createReadStream(JFK),
    model: 'gpt-transcribe',
  })
  // fixture-echo declares only `en` and detects nothing: its only language.
  t.same(json.languages, [{ code: 'en' }])
})

t.test(
  "include[]=logprobs: one per word, spelling the text, the words' own confidences",
  { skip },
  async (t) => {
    const { openai } = await dictum(t)
    const json = await openai.audio.transcriptions.create({
      file: createReadStream(BELLY),
      model: 'gpt-transcribe',
      include: ['logprobs'],
    })
    const logprobs = json.logprobs ?? []
    t.ok(logprobs.length > 5, `${logprobs.length} logprobs`)
    t.equal(logprobs.map((l) => l.token).join(''), json.text, 'the tokens spell the text')
    for (const l of logprobs) {
      t.ok((l.logprob as number) <= 0, `${l.token}: logprob ${l.logprob} <= 0`)
      t.same(l.bytes, [...Buffer.from(l.token as string, 'utf8')], `${l.token}: bytes are its UTF-8`)
    }
    const verbose = await openai.audio.transcriptions.create({
      file: createReadStream(BELLY),
      model: 'gpt-transcribe',
      response_format: 'verbose_json',
      timestamp_granularities: ['word'],
    })
    const words = (verbose.words ?? []) as { word: string; probability?: number }[]
    t.same(
      words.map((w) => w.word),
      logprobs.map((l) => (l.token as string).trim()),
      'the same words as verbose_json',
    )
    words.forEach((w, i) => {
      const p = Math.exp(logprobs[i]?.logprob as number)
      t.ok(Math.abs(p - (w.probability as number)) < 1e-6, `${w.word}: exp(logprob) ${p} is its probability`)
    })
    t.notOk('usage' in json, 'no usage: dictum counts no tokens')
    const stream = await openai.audio.transcriptions.create({
      file: createReadStream(BELLY),
      model: 'gpt-transcribe',
      include: ['logprobs'],
      stream: true,
    })
    const events = []
    for await (const event of stream) events.push(event)
    for (const delta of events.slice(0, -1)) {
      t.same(
        Object.keys(delta).sort(),
        ['delta', 'type'],
        'deltas carry text only (no logprobs, no segment_id)',
      )
    }
    const done = events.at(-1) as OpenAI.Audio.TranscriptionTextDoneEvent
    t.equal(done.type, 'transcript.text.done')
    t.same(done.languages, [{ code: 'en' }], 'the done event has languages')
    t.equal(done.logprobs?.map((l) => l.token).join(''), done.text, 'and logprobs spelling its text')
    const formats = await refused(
      openai.audio.transcriptions.create({
        file: createReadStream(BELLY),
        model: 'gpt-transcribe',
        include: ['logprobs'],
        response_format: 'verbose_json',
      }),
    )
    t.equal((formats.error as { param?: string }).param, 'include', 'json only, as OpenAI')
  },
)

t.test('include[]=logprobs on an engine with no confidences: 400 naming those with them', async (t) => {
  const { openai } = await dictum(t, { speech: { engine: 'fixture-echo' } })
  const error = await refused(
    openai.audio.transcriptions.create({
      file: createReadStream(JFK),
      model: 'gpt-transcribe',
      include: ['logprobs'],
    }),
  )
  t.equal(error.status, 400)
  t.equal(error.code, 'logprobs_unsupported')
  t.match(error.message, /Engines that do: .*pocketsphinx/, error.message)
})

/** The pieces dictum's VAD makes of a clip with these values, in seconds. */
async function vadPieces(t: Test, file: string, tuning: object) {
  const config = resolveConfig(ConfigSchema, { dataDir: tempDir(t), log: { level: 'silent' } })
  const vad = await VadSegmenter.open(config.vad, {
    modelsDir: path.join(config.dataDir, 'models'),
    fallbackModel: bundledVadModel() as string,
  })
  t.teardown(() => vad.close())
  const decoder = new AudioDecoder({ maxSeconds: 600 })
  const samples = await decoder.decode({ kind: 'file', path: file })
  await decoder.close()
  const pieces = []
  for await (const piece of vad.segment(samples, { maxSegmentSeconds: 120, tuning })) {
    pieces.push({ start: piece.startSeconds, samples: piece.samples.length })
  }
  return pieces
}

t.test("chunking_strategy cuts the file where the VAD says, with the request's values", async (t) => {
  // fixture-echo answers "heard N samples" per piece: each segment is one piece the engine was given.
  const { openai } = await dictum(t, { speech: { engine: 'fixture-echo' } })
  const pieces = async (chunking_strategy?: OpenAI.Audio.TranscriptionCreateParams['chunking_strategy']) => {
    const verbose = await openai.audio.transcriptions.create({
      file: createReadStream(JFK),
      model: 'gpt-transcribe',
      response_format: 'verbose_json',
      ...(chunking_strategy === undefined ? {} : { chunking_strategy }),
    })
    return (verbose.segments ?? []).map((s) => ({
      start: s.start,
      samples: Number(/heard (\d+) samples/.exec(s.text)?.[1]),
    }))
  }
  const whole = await pieces()
  t.equal(whole.length, 1, 'absent: an 11 s file that fits the engine goes whole, as before')
  const tight = { type: 'server_vad' as const, silence_duration_ms: 100, threshold: 0.5 }
  const cut = await pieces(tight)
  t.ok(cut.length > 1, `server_vad with 100 ms pauses: ${cut.length} pieces`)
  t.same(cut, await vadPieces(t, JFK, { minSilenceSeconds: 0.1, threshold: 0.5 }), "exactly the VAD's pieces")
  const padded = await pieces({ ...tight, prefix_padding_ms: 300 })
  t.same(
    padded,
    await vadPieces(t, JFK, { minSilenceSeconds: 0.1, threshold: 0.5, paddingSeconds: 0.3 }),
    "padding: the VAD's padded pieces",
  )
  t.ok(padded[1]!.start < cut[1]!.start, 'a padded piece starts earlier')
  t.ok(padded[1]!.start >= cut[0]!.start + cut[0]!.samples / 16000 - 1e-9, 'never inside the piece before')
  const auto = await pieces('auto')
  t.same(auto, await vadPieces(t, JFK, {}), 'auto: the VAD with its configured values')
})

t.test('translations: refused naming the engines that translate; the remote engine forwards', async (t) => {
  const upstream = await startTranscriptionServer(t, () => ({
    json: { text: 'ask not what your country can do' },
  }))
  const { openai } = await dictum(t, {
    speech: {
      engine: 'fixture-echo',
      engines: {
        remote: { baseUrl: upstream.baseUrl, model: 'whisper-1', translate: true, responseFormat: 'json' },
      },
    },
  })
  const error = await refused(
    openai.audio.translations.create({ file: createReadStream(JFK), model: 'whisper-1' }),
  )
  t.equal(error.status, 400)
  t.equal(error.code, 'translation_unsupported')
  t.match(error.message, /Engines that translate: remote/, error.message)
  const translated = await openai.audio.translations.create({ file: createReadStream(JFK), model: 'remote' })
  t.equal(translated.text, 'ask not what your country can do')
  t.equal(upstream.uploads[0]?.url, '/v1/audio/translations', "sent to the server's translation route")
  t.same(upstream.uploads[0]?.fields.language, undefined, "with translations' own fields only")
})

t.test('diarization: diarized_json and known speakers are a clear 400', async (t) => {
  const { openai } = await dictum(t, { speech: { engine: 'fixture-echo' } })
  const file = () => createReadStream(JFK)
  const diarized = await refused(
    openai.audio.transcriptions.create({
      file: file(),
      model: 'gpt-4o-transcribe-diarize',
      response_format: 'diarized_json',
    }),
  )
  t.equal(diarized.status, 400)
  t.equal(diarized.code, 'diarization_unsupported')
  t.equal((diarized.error as { param?: string }).param, 'response_format')
  const speakers = await refused(
    openai.audio.transcriptions.create({
      file: file(),
      model: 'gpt-4o-transcribe-diarize',
      known_speaker_names: ['agent'],
      known_speaker_references: [
        `data:audio/wav;base64,${readFileSync(JFK).subarray(0, 64).toString('base64')}`,
      ],
    }),
  )
  t.equal(speakers.status, 400)
  t.match(speakers.message, /known_speaker_names\[\].*diarization/)
})
