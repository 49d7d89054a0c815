/**
 * Vosk live utterances (the streaming capability) through the real libvosk on the generated fixture model
 * (fixture-model.ts: it hears `hello` wherever the audio is loud): speech fed in 40 ms chunks gives partials
 * from the recognizer's partial results, the final result equals transcribe() of the same audio, streams open
 * at once are independent, cancel frees the recognizer. Real Vosk models: see the skip below.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { Value } from '@sinclair/typebox/value'
import t, { type Test } from 'tap'
import { VOSK_CATALOG } from '../../../engines/vosk/catalog.ts'
import vosk from '../../../engines/vosk/index.ts'
import type { VoskEngine } from '../../../engines/vosk/instance.ts'
import { locateLibrary } from '../../../engines/vosk/library.ts'
import type { VoskOptions } from '../../../engines/vosk/options.ts'
import type { EngineStream } from '../../../kernel/contracts/engine.ts'
import { tempDir } from '../../helpers/build.ts'
import { audioFixturesDir, readClip } from '../pocketsphinx/clips.ts'
import { writeFixtureVoskModel } from './fixture-model.ts'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }
const CHUNK = 640 // 40 ms

async function feed(stream: EngineStream, samples: Float32Array, chunk = CHUNK): Promise<string[]> {
  const partials: string[] = []
  for (let i = 0; i < samples.length; i += chunk) {
    const partial = await stream.accept(samples.slice(i, i + chunk))
    if (partial) partials.push(partial.text)
  }
  return partials
}

const library = locateLibrary()
const modelDir = library.ok
  ? await writeFixtureVoskModel(path.join(tempDir(t, 'dictum-vosk-'), 'fixture-hello'))
  : ''

t.test('the capability is announced', async (t) => {
  t.equal(vosk.capabilities(Value.Default(vosk.optionsSchema, {}) as VoskOptions).streaming, true)
})

if (!library.ok) {
  t.skip(`libvosk not available: ${library.reason}`, () => {})
} else {
  const open = async (t: Test) => {
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

  t.test('speech in chunks: partials, and the final is transcribe()', async (t) => {
    const engine = await open(t)
    for (const [file, chunk] of [
      ['jfk.wav', CHUNK],
      ['goforward.wav', 480],
      ['cards-002.wav', 1700],
    ] as const) {
      const samples = await readClip(path.join(audioFixturesDir, file))
      const whole = await engine.transcribe({ samples, customWords: [] })
      const stream = await engine.openStream({ customWords: [] })
      const partials = await feed(stream, samples, chunk)
      const final = await stream.finish()
      t.equal(final.text, whole.text, `${file}: final = transcribe(): "${final.text}"`)
      // The stream gives the recognizer the same 40 ms blocks as transcribe(), whatever the chunk size, so
      // Vosk's endpointer cuts at the same places and the words and times are the same.
      t.same(final.words, whole.words, `${file}: same words and timings (${chunk} samples per chunk)`)
      t.ok(partials.length > 0, `${file}: ${partials.length} partials`)
      t.ok(
        partials.every((p) => /^(hello ?)*$/.test(p)),
        `${file}: partials are the model's words`,
      )
      t.ok(
        partials.every((p, i) => i === 0 || p !== partials[i - 1]),
        `${file}: a partial only when it changed`,
      )
      t.equal(final.language, 'en')
    }
  })

  t.test('two streams interleaved are independent; cancel and misuse', async (t) => {
    const engine = await open(t)
    const speech = await readClip(path.join(audioFixturesDir, 'goforward.wav'))
    const silence = new Float32Array(speech.length)
    const [a, b] = [
      await engine.openStream({ customWords: [] }),
      await engine.openStream({ customWords: [] }),
    ]
    for (let i = 0; i < speech.length; i += CHUNK) {
      await a.accept(speech.slice(i, i + CHUNK))
      await b.accept(silence.slice(i, i + CHUNK))
    }
    const [finalA, finalB] = [await a.finish(), await b.finish()]
    t.equal(finalA.text, (await engine.transcribe({ samples: speech, customWords: [] })).text)
    t.not(finalA.text, '', 'the speech stream heard words')
    t.equal(finalB.text, '', 'the silent stream heard none')

    const cancelled = await engine.openStream({ customWords: [] })
    await feed(cancelled, speech.subarray(0, 8000))
    cancelled.cancel()
    cancelled.cancel()
    t.throws(() => cancelled.accept(speech), /after the utterance ended/)
    await t.rejects(cancelled.finish(), /after the utterance ended/)
    await t.rejects(a.finish(), /after the utterance ended/, 'a stream finishes once')
  })
}

// Real models, when DICTUM_TEST_MODELS names a folder of catalog model folders by id.
const realModels = process.env.DICTUM_TEST_MODELS
const present = realModels ? VOSK_CATALOG.filter((e) => existsSync(path.join(realModels, e.id))) : []
if (!library.ok || present.length === 0) {
  t.skip(
    realModels
      ? `no Vosk catalog model folder (or no libvosk) in ${realModels}: real-model streaming not tested`
      : 'DICTUM_TEST_MODELS not set: point it at a folder of catalog model folders to stream real Vosk models',
    () => {},
  )
}
for (const entry of present) {
  t.test(`${entry.id}: streamed finals equal transcribe(), partials while speaking`, async (t) => {
    const options = Value.Default(vosk.optionsSchema, { model: entry.id }) as VoskOptions
    const dir = realModels as string
    const engine = await vosk.create({ options, dataDir: dir, modelsDir: dir, logger: quiet })
    t.teardown(() => engine.close())
    await engine.load()
    for (const file of ['jfk.wav', 'goforward.wav', 'librispeech-1089-134686-0001.wav']) {
      const samples = await readClip(path.join(audioFixturesDir, file))
      const stream = await engine.openStream!({ customWords: [] })
      const partials = await feed(stream, samples)
      const final = await stream.finish()
      t.equal(final.text, (await engine.transcribe({ samples, customWords: [] })).text, file)
      t.ok(partials.length >= Math.floor(samples.length / 16000), `${file}: ${partials.length} partials`)
    }
  })
}
