import path from 'node:path'
import t from 'tap'
import pocketsphinx from '../../../engines/pocketsphinx/index.ts'
import { runEngineContract } from '../../../sdk/testing/engine-suite.ts'
import { audioFixturesDir, readClip } from './clips.ts'

const samples = await readClip(path.join(audioFixturesDir, 'goforward.wav'))
await runEngineContract(t, {
  definition: pocketsphinx,
  options: {},
  samples,
  expectText: /^go forward ten meters$/,
})
