import t from 'tap'
import { runEngineContract } from '../../../sdk/testing/engine-suite.ts'
import fake, { fakeTranscript } from '../../fixtures/engines/fake-engine.ts'

const samples = Float32Array.from({ length: 16000 }, (_, i) => Math.sin(i / 10) / 2)
await runEngineContract(t, { definition: fake, options: {}, samples, expectText: fakeTranscript(16000) })
