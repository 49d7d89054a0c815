import { Value } from '@sinclair/typebox/value'
import t from 'tap'
import engine from '../../../engines/sherpa-onnx/index.ts'
import type { SherpaOnnxOptions } from '../../../engines/sherpa-onnx/options.ts'

function options(raw: Record<string, unknown>): SherpaOnnxOptions {
  const value = Value.Default(engine.optionsSchema, structuredClone(raw))
  t.ok(Value.Check(engine.optionsSchema, value), `valid options ${JSON.stringify(raw)}`)
  return value as SherpaOnnxOptions
}

function name(raw: Record<string, unknown>): string {
  return typeof engine.displayName === 'function' ? engine.displayName(options(raw)) : engine.displayName
}

t.test('defaults: Parakeet TDT v2, beam search, custom words', async (t) => {
  const defaults = options({})
  t.equal(defaults.model, 'parakeet-tdt-0.6b-v2')
  t.equal(defaults.numThreads, 2)
  t.equal(defaults.hotwordsScore, 1.5)
  t.match(name({}), /Parakeet TDT 0\.6B v2 \(English\)/)
  t.same(engine.capabilities(defaults), {
    customWords: true,
    wordTimestamps: false,
    segmentTimestamps: false,
    languages: ['en'],
    maxAudioSeconds: 60,
    streaming: false,
    logprobs: true,
    translate: false,
  })
  t.equal(engine.isolation, 'process')
})

t.test('capabilities per family', async (t) => {
  const cases: [Record<string, unknown>, boolean, number, string[] | null][] = [
    [{ model: 'parakeet-tdt-0.6b-v3' }, true, 60, null],
    [{ model: 'parakeet-tdt-0.6b-v2', decodingMethod: 'greedy_search' }, false, 60, ['en']],
    [{ model: 'zipformer-small-en' }, true, 60, ['en']],
    [{ model: 'parakeet-tdt-ctc-110m-en' }, false, 60, ['en']],
    [{ model: 'whisper-tiny.en' }, false, 29, ['en']],
    [{ model: 'whisper-tiny.en', maxAudioSeconds: 120 }, false, 29, ['en']],
    [{ model: 'moonshine-tiny-en' }, false, 30, ['en']],
    [{ model: 'sense-voice-small' }, false, 30, ['zh', 'en', 'ja', 'ko', 'yue']],
    [{ modelDir: '/m', family: 'zipformer-transducer' }, true, 60, ['*']],
    [{ modelDir: '/m', family: 'whisper', languages: ['de'] }, false, 29, ['de']],
    [{ model: 'parakeet-tdt-0.6b-v2', maxAudioSeconds: 20 }, true, 20, ['en']],
    [{ model: 'silero-vad' }, false, 30, ['*']],
  ]
  for (const [raw, customWords, maxAudioSeconds, languages] of cases) {
    const caps = engine.capabilities(options(raw))
    t.equal(caps.customWords, customWords, `${JSON.stringify(raw)} customWords`)
    t.equal(caps.maxAudioSeconds, maxAudioSeconds, `${JSON.stringify(raw)} maxAudioSeconds`)
    if (languages) t.same(caps.languages, languages, `${JSON.stringify(raw)} languages`)
  }
})

t.test('log probabilities from transducers, translation from Whisper', async (t) => {
  const caps = (raw: Record<string, unknown>) => engine.capabilities(options(raw))
  t.equal(caps({ model: 'parakeet-tdt-0.6b-v2' }).logprobs, true, 'a transducer reports token scores')
  t.equal(caps({ model: 'parakeet-tdt-ctc-110m-en' }).logprobs, false, 'a CTC model does not')
  t.equal(caps({ model: 'whisper-tiny.en' }).logprobs, false)
  t.equal(caps({ model: 'whisper-tiny.en' }).translate, true, 'Whisper translates')
  t.equal(caps({ model: 'parakeet-tdt-0.6b-v2' }).translate, false)
})

t.test('display names: catalog name, or what the custom folder is', async (t) => {
  t.match(name({ model: 'whisper-base.en' }), /Whisper Base \(English\)/)
  t.equal(
    name({ modelDir: '/srv/my-model', family: 'nemo-transducer' }),
    'Custom nemo-transducer model (/srv/my-model)',
  )
  t.equal(name({ model: 'nope' }), 'Unknown model nope')
})

t.test('invalid options are rejected by the schema', async (t) => {
  for (const raw of [
    { provider: 'cuda' },
    { family: 'kaldi' },
    { numThreads: 0 },
    { files: { encoder: '../x.onnx' } },
  ]) {
    t.notOk(Value.Check(engine.optionsSchema, Value.Default(engine.optionsSchema, raw)), JSON.stringify(raw))
  }
})

t.test(
  'models: the catalog model the options need (for models.autoPull), none for a custom folder',
  async (t) => {
    t.same(engine.models?.(options({})), ['parakeet-tdt-0.6b-v2'])
    t.same(engine.models?.(options({ model: 'whisper-base.en' })), ['whisper-base.en'])
    t.same(engine.models?.(options({ modelDir: '/m', family: 'whisper' })), [])
    t.same(engine.models?.(options({ model: 'nope' })), [])
    t.same(engine.models?.(options({ model: 'silero-vad' })), [], 'not a speech model')
  },
)
