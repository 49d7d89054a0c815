/** sherpa-onnx's token scores as the engine result's tokens: the word mark is a space, lists must agree. */
import t from 'tap'
import { parseResult, tokensOf } from '../../../engines/sherpa-onnx/result.ts'
import { resultTokens } from '../../../transcription/logprobs.ts'

t.test('tokens with their log-probabilities, spelling the text', async (t) => {
  const result = parseResult(
    '{"text": " HELLO WORLD", "tokens": ["\u2581HE", "LLO", "\u2581WORLD"], "ys_log_probs": [-0.1, -0.2, -0.3]}',
  )
  const tokens = tokensOf(result)
  t.same(tokens, [
    { token: ' HE', logprob: -0.1 },
    { token: 'LLO', logprob: -0.2 },
    { token: ' WORLD', logprob: -0.3 },
  ])
  const spelled = resultTokens({ text: 'HELLO WORLD', confidence: 0.8, tokens: tokens! })
  t.equal(spelled?.map((x) => x.token).join(''), 'HELLO WORLD')
})

t.test('no scores, or lists of different lengths: no tokens', async (t) => {
  t.equal(tokensOf(parseResult('{"text": "a", "tokens": ["a"]}')), undefined)
  t.equal(tokensOf(parseResult('{"text": "a b", "tokens": ["a", "b"], "ys_log_probs": [-1]}')), undefined)
})
