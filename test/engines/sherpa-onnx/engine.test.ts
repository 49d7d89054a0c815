/**
 * The sherpa-onnx engine against generated fixture models (random weights, real layouts): loading, decoding
 * real speech, silence, hotwords reaching the recognizer, greedy search without hotwords, languages, close.
 * The fixtures' text is junk by design; assertions are about behaviour, not words.
 */
import { readdir } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Value } from '@sinclair/typebox/value'
import t, { type Test } from 'tap'
import engine from '../../../engines/sherpa-onnx/index.ts'
import type { SherpaOnnxOptions } from '../../../engines/sherpa-onnx/options.ts'
import type { EngineInstance, EngineTranscribeRequest } from '../../../kernel/contracts/engine.ts'
import { tempDir } from '../../helpers/temp-dir.ts'
import {
  audioFixturesDir,
  CLIPS,
  fixtureModels,
  fixtureModelsDir,
  readWav,
  silentLogger,
} from './fixtures.ts'

const fixtures = await fixtureModels()
if ('skip' in fixtures) t.skip(fixtures.skip, () => {})
const fixturesDir = 'dir' in fixtures ? fixtures.dir : ''
const modelsDir = fixturesDir ? await fixtureModelsDir(fixturesDir, tempDir(t)) : ''
const jfk = await readWav(path.join(audioFixturesDir, 'jfk.wav'))

function optionsOf(raw: Record<string, unknown>): SherpaOnnxOptions {
  return Value.Default(engine.optionsSchema, structuredClone(raw)) as SherpaOnnxOptions
}

async function open(t: Test, raw: Record<string, unknown>): Promise<EngineInstance> {
  const instance = await engine.create({
    options: optionsOf(raw),
    dataDir: modelsDir,
    modelsDir,
    logger: silentLogger,
  })
  t.teardown(() => instance.close())
  await instance.load()
  return instance
}

function request(
  samples: Float32Array,
  extra: Partial<EngineTranscribeRequest> = {},
): EngineTranscribeRequest {
  return { samples, customWords: [], ...extra }
}

/** Every test needs the fixtures; without them the file reports one skip. */
function test(name: string, fn: (t: Test) => Promise<void>): void {
  if (fixturesDir) t.test(name, fn)
}

const MODELS = fixturesDir ? ['parakeet-tdt-0.6b-v2', 'zipformer-small-en', 'whisper-tiny'] : []

for (const model of MODELS) {
  test(`${model}: decodes every shared clip, and digital silence to nothing`, async (t) => {
    const instance = await open(t, { model })
    for (const clip of CLIPS) {
      const result = await instance.transcribe(request(await readWav(path.join(audioFixturesDir, clip))))
      t.type(result.text, 'string', clip)
      t.ok(
        result.confidence === null || (result.confidence >= 0 && result.confidence <= 1),
        `${clip} confidence`,
      )
    }
    const speech = await instance.transcribe(request(jfk))
    t.not(speech.text, '', 'speech gives some (junk) text')
    const silence = await instance.transcribe(request(new Float32Array(16000 * 3)))
    t.equal(silence.text, '', 'silence gives empty text')
    t.equal(silence.confidence, null, 'no confidence without text')
    const tiny = await instance.transcribe(request(new Float32Array(10)))
    t.equal(tiny.text, '', 'a few samples give empty text')
  })
}

test('transducer confidence is the mean token probability', async (t) => {
  const instance = await open(t, { model: 'parakeet-tdt-0.6b-v2' })
  const result = await instance.transcribe(request(jfk))
  t.ok(
    result.confidence !== null && result.confidence > 0 && result.confidence < 1,
    String(result.confidence),
  )
  t.equal(result.language, 'en', 'the only language of the model')
})

test('NeMo transducer: custom words and aliases become scored hotwords', async (t) => {
  const instance = await open(t, { model: 'parakeet-tdt-0.6b-v2', hotwordsScore: 1.5 })
  const customWords = [
    { text: 'Kubernetes', weight: null, aliases: ['cube control'] },
    { text: 'zebra: crossing/x', weight: 100, aliases: [] },
    { text: 'Ångström', weight: 50, aliases: ['#!?'] },
  ]
  const plain = await instance.transcribe(request(jfk))
  const boosted = await instance.transcribe(request(jfk, { customWords }))
  t.same(boosted.debug?.hotwords, [
    'Kubernetes :1.50',
    'cube control :1.50',
    'zebra crossing x :4.00',
    'Angstrom :2.25',
  ])
  t.same(boosted.debug?.skippedHotwords, [{ phrase: '#!?', reason: 'no characters the model can spell' }])
  t.equal(boosted.debug?.decodingMethod, 'modified_beam_search')
  t.same(plain.debug?.hotwords, [], 'no custom words, no hotwords')
  t.not(boosted.text, plain.text, 'the hotwords reach the decoder and change its output')
  const again = await instance.transcribe(request(jfk))
  t.equal(again.text, plain.text, 'hotwords are per request: the next request is unbiased')
})

test('a decoded alias is written back as the canonical text', async (t) => {
  const instance = await open(t, { model: 'parakeet-tdt-0.6b-v2' })
  const plain = await instance.transcribe(request(jfk))
  t.match(plain.text, /\blook\b/, 'the fixture says "look" on this clip')
  const result = await instance.transcribe(
    request(jfk, { customWords: [{ text: 'Lookup', weight: 10, aliases: ['look'] }] }),
  )
  t.match(result.text, /\bLookup\b/)
  t.notMatch(result.text, /\blook\b/i)
})

test('zipformer: hotwords follow the vocabulary case (upper-case BPE)', async (t) => {
  const instance = await open(t, { model: 'zipformer-small-en' })
  const result = await instance.transcribe(
    request(jfk, { customWords: [{ text: 'Kubernetes', weight: 20, aliases: ['kube'] }] }),
  )
  t.same(result.debug?.hotwords, ['KUBERNETES :1.20', 'KUBE :1.20'])
})

test('greedy_search never hands hotwords to the recognizer', async (t) => {
  const options = optionsOf({ model: 'parakeet-tdt-0.6b-v2', decodingMethod: 'greedy_search' })
  t.equal(engine.capabilities(options).customWords, false)
  const instance = await open(t, { model: 'parakeet-tdt-0.6b-v2', decodingMethod: 'greedy_search' })
  const words = [{ text: 'Kubernetes', weight: 100, aliases: ['kube'] }]
  const result = await instance.transcribe(request(jfk, { customWords: words }))
  t.same(result.debug?.hotwords, [])
  t.equal(result.debug?.decodingMethod, 'greedy_search')
})

test('Whisper: custom words are ignored, languages are checked before the recognizer sees them', async (t) => {
  const instance = await open(t, { model: 'whisper-tiny', language: 'de' })
  const words = [{ text: 'Kubernetes', weight: 100, aliases: [] }]
  const configured = await instance.transcribe(request(jfk, { customWords: words }))
  t.equal(configured.language, 'de')
  t.same(configured.debug?.hotwords, [])
  t.equal(
    (await instance.transcribe(request(jfk, { language: 'es' }))).language,
    'es',
    'a known hint is used',
  )
  const unknown = await instance.transcribe(request(jfk, { language: 'fr' }))
  t.equal(unknown.language, 'de', 'a language the model lacks falls back to the configured one')
})

test('Whisper: a request asking to translate runs the translate task; the next one transcribes again', async (t) => {
  const instance = await open(t, { model: 'whisper-tiny' })
  const translated = await instance.transcribe(request(jfk, { task: 'translate' }))
  t.type(translated.text, 'string', 'the fixture decodes with the translate task')
  t.equal(translated.debug?.task, 'translate')
  const transcribed = await instance.transcribe(request(jfk))
  t.equal(transcribed.debug?.task, 'transcribe', 'the configured task is back')
})

test('Whisper: a configured language the model lacks fails the load with a clear error', async (t) => {
  const instance = await engine.create({
    options: optionsOf({ model: 'whisper-tiny', language: 'fr' }),
    dataDir: modelsDir,
    modelsDir,
    logger: silentLogger,
  })
  t.teardown(() => instance.close())
  await t.rejects(instance.load(), { code: 'ENGINE_LOAD_FAILED', message: /language "fr"/ })
})

test('a custom model folder with detected file names', async (t) => {
  const modelDir = path.join(fixturesDir, 'nemo-tdt')
  const instance = await open(t, { modelDir, family: 'nemo-transducer' })
  const result = await instance.transcribe(
    request(jfk, { customWords: [{ text: 'zebra', weight: null, aliases: [] }] }),
  )
  t.same(result.debug?.hotwords, ['zebra :1.50'])
  t.equal(result.debug?.model, 'custom')
})

test('parallel requests are served one after the other', async (t) => {
  const instance = await open(t, { model: 'parakeet-tdt-0.6b-v2' })
  const [a, b] = await Promise.all([instance.transcribe(request(jfk)), instance.transcribe(request(jfk))])
  t.equal(a.text, b.text)
})

test('an aborted request is not decoded', async (t) => {
  const instance = await open(t, { model: 'parakeet-tdt-0.6b-v2' })
  const controller = new AbortController()
  controller.abort(new Error('client went away'))
  await t.rejects(instance.transcribe(request(jfk), controller.signal), { message: 'client went away' })
})

test('close is idempotent, removes the derived bpe.vocab and refuses later work', async (t) => {
  // The engine makes its private dir in os.tmpdir(), pointed at the test's folder only while it loads: in a
  // test group, other files' leftovers in this process (a closing app, a fixture being written) make theirs
  // in os.tmpdir() too, so TMPDIR is given back at once and only the engine's own dir is looked for.
  const tmp = t.testdir()
  const saved = process.env.TMPDIR
  const restore = () => {
    // process.env turns undefined into the string "undefined": a TMPDIR the later tests of a group would use
    if (saved === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = saved
  }
  process.env.TMPDIR = tmp
  t.teardown(restore)
  t.equal(os.tmpdir(), tmp)
  const instance = await engine.create({
    options: optionsOf({ model: 'parakeet-tdt-0.6b-v2' }),
    dataDir: modelsDir,
    modelsDir,
    logger: silentLogger,
  })
  await instance.load()
  restore()
  const own = async () => (await readdir(tmp)).filter((name) => name.startsWith('dictum-sherpa-onnx-'))
  t.equal((await own()).length, 1, 'a private temp dir')
  await instance.close()
  await instance.close()
  t.same(await own(), [], 'removed on close')
  await t.rejects(instance.transcribe(request(jfk)), { code: 'ENGINE_UNAVAILABLE' })
})
