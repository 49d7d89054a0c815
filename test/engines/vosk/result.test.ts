/** Vosk's result JSON (as libvosk 0.3 prints it) to dictum's result: words, segments, confidence. */
import t from 'tap'
import { toResult, wordsOf } from '../../../engines/vosk/result.ts'

const first = `{
  "result" : [{
      "conf" : 1.000000,
      "end" : 0.840000,
      "start" : 0.360000,
      "word" : "go"
    }, {
      "conf" : 0.600000,
      "end" : 1.230000,
      "start" : 0.840000,
      "word" : "forward"
    }],
  "text" : "go forward"
}`
const second = '{"result":[{"conf":0.8,"end":2.4,"start":1.9,"word":"ten"}],"text":"ten"}'

t.test('utterances become segments; confidence is the mean word conf', async (t) => {
  const result = toResult([wordsOf(first), wordsOf('{"text" : ""}'), wordsOf(second)], 'en')
  t.equal(result.text, 'go forward ten')
  t.same(result.segments, [
    { text: 'go forward', start: 0.36, end: 1.23 },
    { text: 'ten', start: 1.9, end: 2.4 },
  ])
  t.same(result.words, [
    { word: 'go', start: 0.36, end: 0.84, confidence: 1 },
    { word: 'forward', start: 0.84, end: 1.23, confidence: 0.6 },
    { word: 'ten', start: 1.9, end: 2.4, confidence: 0.8 },
  ])
  t.ok(Math.abs((result.confidence ?? 0) - 0.8) < 1e-9, 'mean of 1, 0.6 and 0.8')
  t.equal(result.language, 'en')
})

t.test('no words: empty text, null confidence; broken JSON is an error', async (t) => {
  t.same(toResult([wordsOf('{"text" : ""}')], undefined), {
    text: '',
    confidence: null,
    words: [],
    segments: [],
  })
  t.throws(() => wordsOf('{"result": ['), /not JSON/)
})
