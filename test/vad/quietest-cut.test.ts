import t from 'tap'
import { quietestCut } from '../../vad/quietest-cut.ts'

function loud(length: number): Float32Array {
  return Float32Array.from({ length }, (_, i) => 0.5 * Math.sin(i / 3))
}

t.test('the cut lands in the quietest stretch of the window', async (t) => {
  const samples = loud(32000)
  samples.fill(0.001, 20000, 20800)
  const cut = quietestCut(samples, 16000, 32000)
  t.ok(cut >= 20000 && cut <= 20800, `cut at ${cut}`)
  t.equal(quietestCut(samples, 0, 16000) <= 16000, true, 'never past the window')
})

t.test('a window shorter than a frame cuts at its end; bounds are clamped', async (t) => {
  const samples = loud(1000)
  t.equal(quietestCut(samples, 500, 700), 700)
  t.ok(quietestCut(samples, -50, 5000) <= 1000)
})
