import t from 'tap'
import { baseWord, isFiller, toTranscript } from '../../../engines/pocketsphinx/transcript.ts'
import { floatToInt16 as toInt16 } from '../../../sdk/plugin.ts'

t.test('fillers and alternate pronunciations', async (t) => {
  for (const filler of ['<s>', '</s>', '<sil>', '[NOISE]', '[SPEECH]', '++BREATH++'])
    t.ok(isFiller(filler), filler)
  for (const word of ['and', "don't", 'read(2)']) t.notOk(isFiller(word), word)
  t.equal(baseWord('read(2)'), 'read')
  t.equal(baseWord('for'), 'for')
})

t.test('words, timings at 100 frames per second, confidence = mean word posterior', async (t) => {
  const result = toTranscript(
    {
      hypothesis: 'go  forward ',
      segments: [
        { word: '<s>', startFrame: 0, endFrame: 7, posterior: 1 },
        { word: 'go', startFrame: 8, endFrame: 25, posterior: 0.9 },
        { word: '<sil>', startFrame: 26, endFrame: 30, posterior: 0.2 },
        { word: 'forward(2)', startFrame: 31, endFrame: 78, posterior: 0.5 },
        { word: '</s>', startFrame: 79, endFrame: 90, posterior: 1 },
      ],
    },
    'en',
  )
  t.equal(result.text, 'go forward')
  t.same(result.words, [
    { word: 'go', start: 0.08, end: 0.26, confidence: 0.9 },
    { word: 'forward', start: 0.31, end: 0.79, confidence: 0.5 },
  ])
  t.equal(result.confidence, 0.7, 'fillers do not count')
  t.same(result.segments, [{ text: 'go forward', start: 0.08, end: 0.79 }])
  t.equal(result.language, 'en')
})

t.test('no words: empty text and null confidence; odd posteriors are clamped', async (t) => {
  const silent = toTranscript(
    { hypothesis: '', segments: [{ word: '<sil>', startFrame: 0, endFrame: 99, posterior: 1 }] },
    'en',
  )
  t.same(silent, { text: '', confidence: null, words: [], segments: [], language: 'en' })
  const odd = toTranscript(
    {
      hypothesis: 'a b',
      segments: [
        { word: 'a', startFrame: 0, endFrame: 1, posterior: 1.0000001 },
        { word: 'b', startFrame: 2, endFrame: 3, posterior: Number.NaN },
      ],
    },
    'en',
  )
  t.equal(odd.confidence, 0.5)
})

t.test('float to int16 round-trips 16-bit audio and clips', async (t) => {
  const ints = [-32768, -1, 0, 1, 12345, 32767]
  const floats = Float32Array.from(ints, (v) => v / 32768)
  t.same([...toInt16(floats)], ints)
  t.same([...toInt16(Float32Array.of(-2, 2, Number.NaN))], [-32768, 32767, 0])
})
