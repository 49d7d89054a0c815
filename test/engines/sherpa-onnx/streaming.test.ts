/**
 * Streaming (online) sherpa-onnx models against the generated streaming zipformer fixture (random weights,
 * the real encoder state layout): the engine builds an OnlineRecognizer for them, a live utterance fed in
 * 40 ms chunks gives partials and a final result equal to transcribe() of the same audio, streams open at
 * once are independent, and offline models refuse streams with the catalogue's error.
 */
import path from 'node:path'
import { Value } from '@sinclair/typebox/value'
import t, { type Test } from 'tap'
import engine from '../../../engines/sherpa-onnx/index.ts'
import type { SherpaOnnxOptions } from '../../../engines/sherpa-onnx/options.ts'
import type { EngineInstance, EngineStream } from '../../../kernel/contracts/engine.ts'
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
const CHUNK = 640 // 40 ms

function optionsOf(raw: Record<string, unknown>): SherpaOnnxOptions {
  return Value.Default(engine.optionsSchema, structuredClone(raw)) as SherpaOnnxOptions
}

async function open(t: Test, model: string): Promise<EngineInstance> {
  const instance = await engine.create({
    options: optionsOf({ model }),
    dataDir: modelsDir,
    modelsDir,
    logger: silentLogger,
  })
  t.teardown(() => instance.close())
  await instance.load()
  return instance
}

async function feed(stream: EngineStream, samples: Float32Array): Promise<string[]> {
  const partials: string[] = []
  for (let i = 0; i < samples.length; i += CHUNK) {
    const partial = await stream.accept(samples.slice(i, i + CHUNK))
    if (partial) partials.push(partial.text)
  }
  return partials
}

function test(name: string, fn: (t: Test) => Promise<void>): void {
  if (fixturesDir) t.test(name, fn)
}

test('the capability follows the model: streaming models stream, offline ones do not', async (t) => {
  t.equal(engine.capabilities(optionsOf({ model: 'streaming-zipformer-en' })).streaming, true)
  t.equal(engine.capabilities(optionsOf({ model: 'streaming-zipformer-small-zh-en' })).streaming, true)
  t.equal(engine.capabilities(optionsOf({ model: 'zipformer-small-en' })).streaming, false)
  t.equal(engine.capabilities(optionsOf({ model: 'streaming-zipformer-en' })).customWords, false)
  const custom = optionsOf({ modelDir: '/somewhere', family: 'streaming-zipformer-transducer' })
  t.equal(engine.capabilities(custom).streaming, true, 'a folder of your own, by its family')
})

test('streaming fixture: live partials, and the final is transcribe() of the same audio', async (t) => {
  const instance = await open(t, 'streaming-zipformer-en')
  for (const clip of CLIPS) {
    const samples = await readWav(path.join(audioFixturesDir, clip))
    const whole = await instance.transcribe({ samples, customWords: [] })
    const stream = await instance.openStream!({ customWords: [] })
    const partials = await feed(stream, samples)
    const final = await stream.finish()
    t.equal(final.text, whole.text, `${clip}: final = transcribe(): "${final.text}"`)
    t.equal(final.confidence, whole.confidence, `${clip}: same confidence`)
    if (clip === 'jfk.wav') t.ok(partials.length >= 5, `${clip}: ${partials.length} partials`)
    t.equal(partials.length > 0, final.text !== '', `${clip}: partials come exactly when there is text`)
    t.ok(
      partials.every((p, i) => typeof p === 'string' && p !== partials[i - 1]),
      `${clip}: partials are strings, returned when they change`,
    )
    // The fixture's transducer never revises what it emitted: each partial extends the one before.
    t.ok(
      partials.every((p, i) => i === 0 || p.startsWith(partials[i - 1]!)),
      `${clip}: partials grow`,
    )
    t.ok(final.text.startsWith(partials.at(-1) ?? ''), `${clip}: the final extends the last partial`)
    t.match(final, { text: String, debug: { model: 'streaming-zipformer-en' } }, `${clip}: result shape`)
  }
  const silence = await instance.openStream!({ customWords: [] })
  t.same(await feed(silence, new Float32Array(16000)), [], 'silence: no partial')
  t.same((await silence.finish()).text, '', 'and an empty final')
})

test('two streams interleaved decode independently; cancel and misuse', async (t) => {
  const instance = await open(t, 'streaming-zipformer-en')
  const a = await readWav(path.join(audioFixturesDir, 'jfk.wav'))
  const b = await readWav(path.join(audioFixturesDir, 'goforward.wav'))
  const [streamA, streamB] = [
    await instance.openStream!({ customWords: [] }),
    await instance.openStream!({ customWords: [] }),
  ]
  for (let i = 0; i < Math.max(a.length, b.length); i += CHUNK) {
    if (i < a.length) await streamA.accept(a.slice(i, i + CHUNK))
    if (i < b.length) await streamB.accept(b.slice(i, i + CHUNK))
  }
  const [finalA, finalB] = [await streamA.finish(), await streamB.finish()]
  t.equal(finalA.text, (await instance.transcribe({ samples: a, customWords: [] })).text)
  t.equal(finalB.text, (await instance.transcribe({ samples: b, customWords: [] })).text)
  t.not(finalA.text, finalB.text)

  const cancelled = await instance.openStream!({ customWords: [] })
  await feed(cancelled, b.subarray(0, 8000))
  cancelled.cancel()
  cancelled.cancel()
  t.throws(() => cancelled.accept(b), /after the utterance ended/)
  await t.rejects(cancelled.finish(), /after the utterance ended/)
  await t.rejects(streamA.finish(), /after the utterance ended/, 'a stream finishes once')
})

test('an offline model refuses streams with ENGINE_STREAMING_UNSUPPORTED', async (t) => {
  const instance = await open(t, 'zipformer-small-en')
  await t.rejects(async () => instance.openStream!({ customWords: [] }), {
    code: 'ENGINE_STREAMING_UNSUPPORTED',
    message: /zipformer-small-en is not a streaming model/,
  })
})
