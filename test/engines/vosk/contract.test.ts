/**
 * The engine contract suite on Vosk. The definition checks always run; the instance checks and the word
 * error rate on the shared clips need the real model, so they run only when `DICTUM_TEST_MODELS` names a
 * folder holding `vosk-model-small-en-us-0.15/` (as `dictum models pull` lays it out).
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { Value } from '@sinclair/typebox/value'
import t from 'tap'
import vosk from '../../../engines/vosk/index.ts'
import type { VoskEngine } from '../../../engines/vosk/instance.ts'
import type { VoskOptions } from '../../../engines/vosk/options.ts'
import { runEngineContract } from '../../../sdk/testing/engine-suite.ts'
import { corpusWordErrorRate } from '../../helpers/wer.ts'
import { audioFixturesDir, readClip, referenceClips } from '../pocketsphinx/clips.ts'

const ID = 'vosk-model-small-en-us-0.15'
const quiet = { debug() {}, info() {}, warn() {}, error() {} }
const modelsDir = process.env.DICTUM_TEST_MODELS
const present = modelsDir !== undefined && existsSync(path.join(modelsDir, ID))
const goforward = await readClip(path.join(audioFixturesDir, 'goforward.wav'))

if (!present) {
  // Without the model the definition is still checked; the suite skips its instance checks itself.
  await runEngineContract(t, { definition: vosk, options: {}, samples: goforward })
  t.skip(
    `DICTUM_TEST_MODELS does not hold ${ID}/: set it to a folder of catalog models to test real Vosk recognition`,
    () => {},
  )
} else {
  const modelDir = path.join(modelsDir, ID)
  await runEngineContract(t, {
    definition: vosk,
    options: { modelDir, language: 'en' },
    samples: goforward,
    expectText: /forward/,
  })

  t.test(`${ID}: the shared clips, word timings and confidences, silence`, async (t) => {
    const options = Value.Default(vosk.optionsSchema, { model: ID }) as VoskOptions
    t.same(await vosk.probe!({ options, dataDir: modelsDir, modelsDir, logger: quiet }), { available: true })
    const instance = (await vosk.create({
      options,
      dataDir: modelsDir,
      modelsDir,
      logger: quiet,
    })) as VoskEngine
    t.teardown(() => instance.close())
    await instance.load()
    t.match(instance.libraryVersion, { version: /^\d+\.\d+\.\d+/ }, 'libvosk version known after load')
    const pairs = []
    for (const clip of referenceClips()) {
      const samples = await readClip(clip.path)
      const result = await instance.transcribe({ samples, customWords: [] })
      pairs.push({ reference: clip.reference, hypothesis: result.text })
      const seconds = samples.length / 16000
      for (const word of result.words ?? []) {
        if (!(word.start <= word.end && word.end <= seconds + 0.05))
          t.fail(`${clip.file}: timing of ${word.word}`)
        if (!(word.confidence! >= 0 && word.confidence! <= 1))
          t.fail(`${clip.file}: confidence of ${word.word}`)
      }
    }
    const wer = corpusWordErrorRate(pairs)
    t.comment(`${ID}: corpus WER ${wer.toFixed(3)} on ${pairs.length} clips`)
    t.ok(wer < 0.35, `corpus WER ${wer.toFixed(3)}`)
    const silence = await instance.transcribe({ samples: new Float32Array(16000 * 2), customWords: [] })
    t.equal(silence.text, '', 'silence stays empty')
  })
}
