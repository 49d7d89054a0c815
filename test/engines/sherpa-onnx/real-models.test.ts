/**
 * Real models, when `DICTUM_TEST_MODELS` names a folder holding catalog model folders by id (as
 * `dictum models pull` lays them out): every sherpa-onnx model present transcribes the shared clips with a
 * plausible word error rate, silence stays empty, transducers take custom words, and streaming models fed in
 * 40 ms chunks give partials and the same final text as transcribe().
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { Value } from '@sinclair/typebox/value'
import t from 'tap'
import { SHERPA_ONNX_CATALOG } from '../../../engines/sherpa-onnx/catalog.ts'
import engine from '../../../engines/sherpa-onnx/index.ts'
import type { SherpaOnnxOptions } from '../../../engines/sherpa-onnx/options.ts'
import { referenceTranscripts } from '../../helpers/fixtures.ts'
import { corpusWordErrorRate } from '../../helpers/wer.ts'
import { audioFixturesDir, readWav, silentLogger } from './fixtures.ts'

const modelsDir = process.env.DICTUM_TEST_MODELS
/** Loose bounds: they catch a broken pipeline (wrong features, wrong tokens), not a slightly worse model. */
const MAX_WER: Record<string, number> = {
  whisper: 0.5,
  moonshine: 0.4,
  // The small bilingual streaming model is weaker on English read speech.
  'streaming-zipformer-transducer': 0.5,
}

if (!modelsDir) {
  t.skip(
    'DICTUM_TEST_MODELS not set: point it at a folder of catalog model folders to test real models',
    () => {},
  )
} else {
  const present = SHERPA_ONNX_CATALOG.filter((e) => existsSync(path.join(modelsDir, e.id)))
  if (present.length === 0) t.skip(`no sherpa-onnx catalog model folder in ${modelsDir}`, () => {})
  for (const entry of present) {
    t.test(entry.id, async (t) => {
      const options = Value.Default(engine.optionsSchema, { model: entry.id }) as SherpaOnnxOptions
      t.ok((await engine.probe!({ options, dataDir: modelsDir, modelsDir, logger: silentLogger })).available)
      const instance = await engine.create({ options, dataDir: modelsDir, modelsDir, logger: silentLogger })
      t.teardown(() => instance.close())
      await instance.load()
      const pairs = []
      for (const ref of referenceTranscripts()) {
        const samples = await readWav(ref.path)
        const result = await instance.transcribe({ samples, customWords: [], language: 'en' })
        pairs.push({ reference: ref.reference, hypothesis: result.text })
      }
      const wer = corpusWordErrorRate(pairs)
      t.ok(wer < (MAX_WER[entry.family] ?? 0.3), `corpus WER ${wer.toFixed(3)}`)
      if (engine.capabilities(options).streaming) {
        for (const ref of referenceTranscripts().slice(0, 4)) {
          const samples = await readWav(ref.path)
          const stream = await instance.openStream!({ customWords: [] })
          let partials = 0
          for (let i = 0; i < samples.length; i += 640)
            if (await stream.accept(samples.slice(i, i + 640))) partials++
          const final = await stream.finish()
          const whole = await instance.transcribe({ samples, customWords: [] })
          t.equal(final.text, whole.text, `${ref.file}: streamed final = transcribe()`)
          t.ok(partials >= Math.floor(samples.length / 16000), `${ref.file}: ${partials} partials`)
        }
      }
      const silence = await instance.transcribe({ samples: new Float32Array(16000 * 2), customWords: [] })
      t.equal(silence.text, '', 'silence stays empty')
      if (engine.capabilities(options).customWords) {
        const samples = await readWav(path.join(audioFixturesDir, 'cards-001.wav'))
        const words = [{ text: 'Diamonds', weight: 60, aliases: ['diamond'] }]
        const result = await instance.transcribe({ samples, customWords: words })
        t.ok(Array.isArray(result.debug?.hotwords) && (result.debug.hotwords as string[]).length === 2)
        t.type(result.text, 'string')
      }
    })
  }
}
