/** OpenAI's logprobs from engine results: tokens first, else words with confidences, spelled like the text. */
import t from 'tap'
import {
  enginesWithLogprobs,
  joinTokens,
  MIN_LOGPROB,
  probabilityToLogprob,
  resultTokens,
  toLogprobs,
} from '../../transcription/logprobs.ts'

t.test('word confidences become one token per word, spelling the text', async (t) => {
  const tokens = resultTokens({
    text: 'hello world',
    confidence: 0.5,
    words: [
      { word: 'hello', start: 0, end: 0.4, confidence: 1 },
      { word: 'world', start: 0.5, end: 0.9, confidence: 0.25 },
    ],
  })
  t.same(tokens, [
    { token: 'hello', logprob: 0 },
    { token: ' world', logprob: Math.log(0.25) },
  ])
  t.equal(tokens?.map((x) => x.token).join(''), 'hello world')
})

t.test("an engine's own tokens win over words; the leading word mark space is dropped", async (t) => {
  const tokens = resultTokens({
    text: 'HELLO THERE',
    confidence: 0.9,
    words: [{ word: 'HELLO', start: 0, end: 1, confidence: 0.9 }],
    tokens: [
      { token: ' HEL', logprob: -0.1 },
      { token: 'LO', logprob: -0.2 },
      { token: ' THERE', logprob: Number.NaN },
    ],
  })
  t.same(tokens, [
    { token: 'HEL', logprob: -0.1 },
    { token: 'LO', logprob: -0.2 },
    { token: ' THERE', logprob: MIN_LOGPROB },
  ])
})

t.test('no certainty: null; no text: no tokens', async (t) => {
  t.equal(resultTokens({ text: 'hi', confidence: null }), null)
  t.equal(resultTokens({ text: 'hi there', confidence: 1, words: [{ word: 'hi', start: 0, end: 1 }] }), null)
  t.same(resultTokens({ text: '', confidence: null }), [])
})

t.test('pieces join with a space; one piece without certainty makes the whole null', async (t) => {
  const a = { text: 'one', confidence: 1, words: [{ word: 'one', start: 0, end: 1, confidence: 1 }] }
  const b = { text: 'two', confidence: 1, words: [{ word: 'two', start: 0, end: 1, confidence: 0.5 }] }
  const joined = joinTokens([a, { text: '', confidence: null }, b])
  t.equal(joined?.map((x) => x.token).join(''), 'one two')
  t.equal(joinTokens([a, { text: 'x', confidence: null }]), null)
})

t.test('probabilities to logs: floored, never above 0; bytes are UTF-8', async (t) => {
  t.equal(probabilityToLogprob(0), MIN_LOGPROB)
  t.equal(probabilityToLogprob(Number.NaN), MIN_LOGPROB)
  t.equal(probabilityToLogprob(2), 0)
  t.same(toLogprobs([{ token: ' é', logprob: -1 }]), [{ token: ' é', logprob: -1, bytes: [32, 0xc3, 0xa9] }])
  t.same(
    enginesWithLogprobs([
      { id: 'a', capabilities: { logprobs: true } },
      { id: 'b', capabilities: {} },
    ]),
    ['a'],
  )
})
