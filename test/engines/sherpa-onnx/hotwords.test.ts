import t from 'tap'
import {
  applyCanonicalForms,
  MAX_SCORE,
  MIN_SCORE,
  planHotwords,
  sanitizePhrase,
  weightToScore,
} from '../../../engines/sherpa-onnx/hotwords.ts'
import { parseTokens } from '../../../engines/sherpa-onnx/tokens.ts'

const mixed = parseTokens(
  ['<unk> 0', '\u2581the 1', 'a 2', 'b 3', 'C 4', "' 5", '- 6', 'x 7', 'e 8', '<blk> 9'].join('\n'),
)
const upper = parseTokens(['<blk> 0', '\u2581THE 1', 'A 2', 'B 3', 'E 4', 'X 5'].join('\n'))

t.test('weight maps monotonically onto the score range; null takes the default', async (t) => {
  t.equal(weightToScore(null, 1.5), 1.5)
  t.equal(weightToScore(100, 1.5), MAX_SCORE)
  t.equal(weightToScore(50, 1.5), MIN_SCORE + (MAX_SCORE - MIN_SCORE) / 2)
  let previous = weightToScore(0.001, 1)
  for (const w of [0.1, 1, 5, 20, 50, 99, 100]) {
    const score = weightToScore(w, 1)
    t.ok(score > previous && score > MIN_SCORE && score <= MAX_SCORE, `weight ${w} -> ${score}`)
    previous = score
  }
})

t.test('phrases keep only what the vocabulary can spell, in its letter case', async (t) => {
  t.equal(sanitizePhrase('  abc: /x#@\n', mixed), 'abC x', 'C is the only capital the vocabulary has')
  t.equal(sanitizePhrase("-a'b- e", mixed), "a'b e", 'inner apostrophe kept, edge hyphen dropped')
  t.equal(sanitizePhrase('ébé', mixed), 'ebe', 'accents fall back to the base letter')
  t.equal(sanitizePhrase('axe bee', upper), 'AXE BEE')
  t.equal(sanitizePhrase(':1.5', upper), '', 'nothing spellable left')
})

t.test('plan: scored lines, aliases too, duplicates once, unspellable phrases reported', async (t) => {
  const plan = planHotwords(
    [
      { text: 'axe', weight: null, aliases: ['AXE', 'bee'] },
      { text: 'babe', weight: 100, aliases: ['?!'] },
    ],
    upper,
    2,
  )
  t.same(plan.lines, ['AXE :2.00', 'BEE :2.00', 'BABE :4.00'])
  t.same(plan.skipped, [{ phrase: '?!', reason: 'no characters the model can spell' }])
  for (const line of plan.lines) t.match(line, /^[^:/\n#@]+ :\d+\.\d\d$/, 'safe for sherpa-onnx')
})

t.test('canonical forms: aliases and other cases of the word, whole words only', async (t) => {
  const words = [
    { text: 'Kubernetes', weight: null, aliases: ['cube control', 'kube'] },
    { text: 'C++', weight: null, aliases: ['see plus plus'] },
  ]
  t.equal(
    applyCanonicalForms('deploy with cube   control and KUBERNETES', words),
    'deploy with Kubernetes and Kubernetes',
  )
  t.equal(
    applyCanonicalForms('kubes and kubectl stay, kube goes', words),
    'kubes and kubectl stay, Kubernetes goes',
  )
  t.equal(applyCanonicalForms('I write See plus plus.', words), 'I write C++.')
  t.equal(applyCanonicalForms('nothing here', []), 'nothing here')
  t.equal(applyCanonicalForms('über kube', [{ text: 'Kube', weight: null, aliases: ['über'] }]), 'Kube Kube')
})
