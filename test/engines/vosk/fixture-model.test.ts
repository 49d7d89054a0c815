/**
 * The whole libvosk path on a generated model (see fixture-model.ts: it hears one word, `hello`, wherever the
 * audio is loud): the engine contract suite, words with times and confidences from real recognizer results,
 * silence, cancellation between chunks, and the engine selected in a real app (isolated engine process) over
 * /v1/transcribe and the OpenAI route.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { Value } from '@sinclair/typebox/value'
import t, { type Test } from 'tap'
import vosk from '../../../engines/vosk/index.ts'
import type { VoskEngine } from '../../../engines/vosk/instance.ts'
import { locateLibrary } from '../../../engines/vosk/library.ts'
import type { VoskOptions } from '../../../engines/vosk/options.ts'
import { runEngineContract } from '../../../sdk/testing/engine-suite.ts'
import { build, tempDir } from '../../helpers/build.ts'
import { audioFixturesDir, readClip } from '../pocketsphinx/clips.ts'
import { writeFixtureVoskModel } from './fixture-model.ts'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }
const library = locateLibrary()
if (!library.ok) {
  t.skip(`libvosk not available: ${library.reason}`, () => {})
} else {
  const modelDir = await writeFixtureVoskModel(path.join(tempDir(t, 'dictum-vosk-'), 'fixture-hello'))
  const jfk = await readClip(path.join(audioFixturesDir, 'jfk.wav'))

  await runEngineContract(t, {
    definition: vosk,
    options: { modelDir, language: 'en' },
    samples: await readClip(path.join(audioFixturesDir, 'goforward.wav')),
    expectText: /^hello( hello)*$/,
  })

  const instance = async (t: Test) => {
    const options = Value.Default(vosk.optionsSchema, { modelDir, language: 'en' }) as VoskOptions
    const engine = (await vosk.create({
      options,
      dataDir: modelDir,
      modelsDir: modelDir,
      logger: quiet,
    })) as VoskEngine
    t.teardown(() => engine.close())
    await engine.load()
    return engine
  }

  t.test(
    'real recognizer results: words with times and confidences, one segment per utterance',
    async (t) => {
      const engine = await instance(t)
      t.match(engine.libraryVersion, { version: '0.3.39' })
      const result = await engine.transcribe({ samples: jfk, customWords: [] })
      const words = result.words ?? []
      t.ok(words.length >= 3, `${words.length} words`)
      t.equal(result.text, words.map((w) => w.word).join(' '))
      t.equal(result.language, 'en')
      for (const [i, word] of words.entries()) {
        if (!(word.start <= word.end && word.end <= 11 && (i === 0 || word.start >= words[i - 1]!.start))) {
          t.fail(`word ${i} timing ${word.start}..${word.end}`)
        }
        if (!(word.confidence! > 0 && word.confidence! <= 1))
          t.fail(`word ${i} confidence ${word.confidence}`)
      }
      const mean = words.reduce((sum, w) => sum + w.confidence!, 0) / words.length
      t.ok(Math.abs((result.confidence ?? -1) - mean) < 1e-12, 'confidence is the mean word conf')
      t.same(result.segments!.map((s) => s.text).join(' '), result.text, 'segments cover the text')
      t.equal(result.segments!.at(-1)!.end, words.at(-1)!.end)
      const silence = await engine.transcribe({ samples: new Float32Array(16000 * 3), customWords: [] })
      t.same(
        silence,
        { text: '', confidence: null, words: [], segments: [], language: 'en' },
        'silence: nothing',
      )
    },
  )

  t.test('a cancelled request stops between chunks', async (t) => {
    const engine = await instance(t)
    const long = await readClip(path.join(audioFixturesDir, 'extra/silero-vad-test-en-60s.wav'))
    const controller = new AbortController()
    const pending = engine.transcribe({ samples: long, customWords: [] }, controller.signal)
    const reason = new Error('the client went away')
    setImmediate(() => controller.abort(reason))
    await t.rejects(pending, reason)
    const after = await engine.transcribe({ samples: jfk, customWords: [] })
    t.match(after.text, /^hello/, 'the model still works afterwards')
  })

  t.test('selected in an app: isolated engine process, /v1/transcribe and the OpenAI route', async (t) => {
    const app = await build(t, { speech: { engine: 'vosk', engines: { vosk: { modelDir } } } })
    const audio = readFileSync(path.join(audioFixturesDir, 'jfk.wav'))
    const res = await app.inject({
      method: 'POST',
      url: '/v1/transcribe',
      payload: audio,
      headers: { 'content-type': 'audio/wav' },
    })
    t.equal(res.statusCode, 200)
    t.match(res.json(), { text: /^hello( hello)+$/, provider: 'Vosk (fixture-hello)', sampleCount: 176000 })
    t.ok(res.json().confidence > 0 && res.json().confidence <= 1)
    const form = new FormData()
    form.append('file', new Blob([audio], { type: 'audio/wav' }), 'jfk.wav')
    form.append('response_format', 'verbose_json')
    form.append('timestamp_granularities[]', 'word')
    const request = new Request('http://127.0.0.1/', { method: 'POST', body: form })
    const openai = await app.inject({
      method: 'POST',
      url: '/v1/audio/transcriptions',
      payload: Buffer.from(await request.arrayBuffer()),
      headers: { 'content-type': request.headers.get('content-type')! },
    })
    t.equal(openai.statusCode, 200)
    const verbose = openai.json()
    t.ok(verbose.words.length >= 3 && verbose.words.every((w: { word: string }) => w.word === 'hello'))
    t.ok(verbose.words.every((w: { probability: number }) => w.probability > 0 && w.probability <= 1))
    const engines = (await app.inject({ method: 'GET', url: '/v1/engines' })).json()
    t.match(
      engines.items.find((e: { id: string }) => e.id === 'vosk'),
      { status: 'ready', active: true },
    )
  })
}
