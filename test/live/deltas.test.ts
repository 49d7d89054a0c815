/**
 * The stability rule of live deltas (live/deltas.ts) on hypotheses as engines give them, with the real
 * replacement matcher: deltas only grow, a rule spanning words is never cut in half, the final is the
 * transcript, and a final that revises sent words is marked revised, its last delta aligned on what was sent.
 */
import t from 'tap'
import { compileReplacements } from '../../dictionary/replace.ts'
import { alignedPrefix, ItemText, longestTriggerWords } from '../../live/deltas.ts'

function run(hypotheses: string[], final: string, rules: { triggers: string[]; replacement: string }[] = []) {
  const matcher = compileReplacements(rules.map((r, i) => ({ id: String(i), ...r })))
  const text = new ItemText((s) => matcher.apply(s), longestTriggerWords(rules.flatMap((r) => r.triggers)))
  const deltas: string[] = []
  const partials: string[] = []
  for (const hypothesis of hypotheses) {
    const { text: partial, delta } = text.partial(hypothesis)
    partials.push(partial)
    if (delta !== '') deltas.push(delta)
  }
  const end = text.final(final)
  if (end.delta !== '') deltas.push(end.delta)
  return { deltas, partials, ...end }
}

t.test('a word is sent once it stayed the same in two hypotheses and a word follows it', async (t) => {
  const r = run(
    ['the', 'the cat', 'the cat sat', 'the cat sat on', 'the cat sat on the', 'the cat sat on the mat'],
    'the cat sat on the mat',
  )
  t.same(r.deltas, ['the', ' cat', ' sat', ' on', ' the', ' mat'])
  t.equal(r.transcript, 'the cat sat on the mat')
  t.equal(r.deltas.join(''), r.transcript)
  t.notOk(r.revised)
})

t.test('a revised word is not sent until it settles', async (t) => {
  const r = run(
    ['the', 'the cap', 'the cat', 'the cat sat', 'the cat sat down', 'the cat sat down here'],
    'the cat sat down here',
  )
  // "cap" became "cat": "cat" is sent only once two hypotheses agree on it
  t.same(r.deltas, ['the', ' cat', ' sat', ' down', ' here'])
  t.equal(r.deltas.join(''), r.transcript)
})

t.test('a rule spanning words: its first word waits until the rule is settled', async (t) => {
  const rules = [
    { triggers: ['new line'], replacement: '\n' },
    { triggers: ['new york city'], replacement: 'NYC' },
  ]
  t.equal(longestTriggerWords(rules.flatMap((r) => r.triggers)), 3)
  const r = run(
    [
      'I',
      'I love',
      'I love new',
      'I love new york',
      'I love new york city',
      'I love new york city today',
      'I love new york city today and',
    ],
    'I love new york city today and more',
    rules,
  )
  t.notOk(
    r.deltas.some((d) => /new|york/.test(d)),
    `never a trigger's word: ${JSON.stringify(r.deltas)}`,
  )
  t.equal(r.transcript, 'I love NYC today and more')
  t.equal(r.deltas.join(''), r.transcript)
  t.ok(r.partials.includes('I love NYC'), 'partials carry the replacement')
  // without the hold-back, "new" would have gone out after "I love new york" (stable, not last)
  t.ok(r.deltas.length >= 3, `text came early: ${JSON.stringify(r.deltas)}`)
})

t.test('a final that revises sent words is the transcript, marked revised', async (t) => {
  const r = run(
    [
      'stuff it',
      'stuff it into',
      'stuff it into you',
      'stuff it into you his',
      'stuff it into you his belly',
    ],
    'stuff it into his belly counsel them',
  )
  t.equal(r.deltas.slice(0, -1).join(''), 'stuff it into you his', 'these were sent')
  t.ok(r.revised)
  t.equal(
    r.transcript,
    'stuff it into his belly counsel them',
    "the engine's final, as a file transcription gives it",
  )
  t.equal(
    r.deltas.at(-1),
    ' belly counsel them',
    'the last delta goes on after the final words the sent ones stand for: none lost, none doubled',
  )
  const agreeing = run(
    ['he was', 'he was not', 'he was not an', 'he was not an ill'],
    'he was not an ill disposed',
  )
  t.notOk(agreeing.revised)
  t.equal(
    agreeing.deltas.join(''),
    agreeing.transcript,
    'a final that extends the sent words: the deltas make it',
  )
})

t.test(
  "alignment of the sent words on the final: least edit distance, on a tie the final's words are kept",
  async (t) => {
    const words = (s: string) => s.split(' ').filter(Boolean)
    t.equal(
      alignedPrefix(words('stuff it into you his belly'), words('stuff it into his belly counsel them')),
      5,
    )
    t.equal(alignedPrefix(words('a'), words('ten of clubs')), 0, 'a tie: "ten" comes after "a", not lost')
    t.equal(alignedPrefix(words('he was not until'), words('he was not an ill disposed young man')), 3)
    t.equal(alignedPrefix(words('go forward to and'), words('go forward ten meters')), 2)
    t.equal(alignedPrefix(words('one two three'), words('one')), 1, 'a final shorter than what was sent')
    t.equal(alignedPrefix([], words('one two')), 0, 'nothing sent')
    t.equal(alignedPrefix(words('go forward'), []), 0, 'an empty final')
  },
)

t.test('whitespace as engines give it; an empty final; a final shorter than what was sent', async (t) => {
  const spaced = run(['  hello ', ' hello  world ', ' hello  world  again '], ' hello  world  again ')
  t.equal(spaced.transcript, 'hello  world  again', 'the final text, trimmed, as the file path gives it')
  t.equal(spaced.deltas.join(''), spaced.transcript)
  const empty = run([], '')
  t.same(empty.deltas, [])
  t.equal(empty.transcript, '')
  const shorter = run(['one', 'one two', 'one two three', 'one two three four'], 'one')
  t.equal(shorter.deltas.join(''), 'one two three', 'sent before the final came')
  t.equal(shorter.transcript, 'one')
  t.ok(shorter.revised)
})
