/** The engine conformance suite, with each fixture model as a custom model folder (and uninstalled). */
import path from 'node:path'
import t from 'tap'
import engine from '../../../engines/sherpa-onnx/index.ts'
import { runEngineContract } from '../../../sdk/testing/engine-suite.ts'
import { audioFixturesDir, fixtureModels, readWav } from './fixtures.ts'

const fixtures = await fixtureModels()
const samples = await readWav(path.join(audioFixturesDir, 'librispeech-1089-134686-0000.wav'))

await runEngineContract(t, { definition: engine, options: { model: 'parakeet-tdt-0.6b-v2' }, samples })
if ('skip' in fixtures) {
  t.skip(fixtures.skip, () => {})
} else {
  for (const [name, family] of [
    ['nemo-tdt', 'nemo-transducer'],
    ['zipformer', 'zipformer-transducer'],
    ['whisper', 'whisper'],
  ] as const) {
    await runEngineContract(t, {
      definition: engine,
      options: { modelDir: path.join(fixtures.dir, name), family },
      samples,
    })
  }
}
