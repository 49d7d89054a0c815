// The example engine passes dictum's engine conformance suite, the one every built-in engine passes.

import { runEngineContract } from 'dictum-local/testing'
import t from 'tap'
import definition from '../index.js'

const SAMPLE_RATE = 16000
/** 1 s of silence, 0.5 s of a 440 Hz tone, 1 s of silence, 0.5 s of tone. */
function twoBursts() {
  const samples = new Float32Array(3 * SAMPLE_RATE)
  for (const from of [1, 2.5]) {
    for (let i = 0; i < SAMPLE_RATE / 2; i++)
      samples[from * SAMPLE_RATE + i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / SAMPLE_RATE)
  }
  return samples
}

await runEngineContract(t, {
  definition,
  options: {},
  samples: twoBursts(),
  expectText: 'loud part 1, loud part 2',
})
