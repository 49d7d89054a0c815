import path from 'node:path'
import t from 'tap'
import pocketsphinx from '../../../engines/pocketsphinx/index.ts'
import { runEngineContract, SAMPLE_CUSTOM_WORDS } from '../../../sdk/testing/engine-suite.ts'
import { audioFixturesDir, readClip } from './clips.ts'

const samples = await readClip(path.join(audioFixturesDir, 'goforward.wav'))
await runEngineContract(t, {
  definition: pocketsphinx,
  options: {},
  samples,
  expectText: /^go forward ten meters$/,
  // A word of the clip written in another case: the transcript shows the custom word's canonical text.
  customWords: [...SAMPLE_CUSTOM_WORDS, { text: 'Forward', weight: null, aliases: [] }],
  expectCustomText: /^go Forward ten meters$/,
  skipLongestPiece: 'pocketsphinx decodes 60 s of speech in 15-20 s on this machine: too slow for every run',
})
