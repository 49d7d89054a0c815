import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { applyReplacements, compileReplacements } from '../../../dictionary/replace.ts'
import { build, injectJson } from '../../helpers/build.ts'
import { audioFixturesDir } from '../../helpers/fixtures.ts'

const rule = (triggers: string[], replacement: string) => ({ id: crypto.randomUUID(), triggers, replacement })

t.test('case-insensitive, whole words only', async (t) => {
  const rules = [rule(['gpt'], 'GPT')]
  t.equal(applyReplacements('I asked Gpt and GPT and gpt.', rules), 'I asked GPT and GPT and GPT.')
  t.equal(
    applyReplacements('chatgpt gpts gpt4 gpt-4', rules),
    'chatgpt gpts gpt4 GPT-4',
    'digits are word characters',
  )
})

t.test('Unicode letters and digits are word characters', async (t) => {
  const rules = [rule(['café'], 'Café Noir'), rule(['über'], 'Uber')]
  t.equal(applyReplacements('le café, cafés, ÜBER überall', rules), 'le Café Noir, cafés, Uber überall')
  t.equal(applyReplacements('東京 東京都', [rule(['東京'], 'Tokyo')]), 'Tokyo 東京都')
})

t.test('the longest trigger wins at a position', async (t) => {
  const rules = [rule(['new'], 'NEW'), rule(['new york'], 'New York'), rule(['new york city'], 'NYC')]
  t.equal(applyReplacements('new york city is new, new york too', rules), 'NYC is NEW, New York too')
})

t.test('settled: the part of the result no following words can change', async (t) => {
  const matcher = compileReplacements([rule(['new'], 'NEW'), rule(['new york city'], 'NYC')])
  // "new" could still become "new york city": everything from it waits.
  t.same(matcher.applySettled('I love new'), { text: 'I love NEW', settled: 'I love '.length })
  t.same(matcher.applySettled('I love new york'), { text: 'I love NEW york', settled: 'I love '.length })
  t.same(matcher.applySettled('I love new york city'), { text: 'I love NYC', settled: 'I love NYC'.length })
  t.same(matcher.applySettled('new jersey and new'), {
    text: 'NEW jersey and NEW',
    settled: 'NEW jersey and '.length,
  })
  t.same(matcher.applySettled('renew'), { text: 'renew', settled: 5 }, 'no trigger starts inside a word')
  for (const text of ['I love new', 'I love new york', 'new jersey and new', 'say new york city now']) {
    // Whatever follows, the settled prefix stays.
    for (const more of ['york city', 'york', 'jersey', 'new']) {
      const { text: now, settled } = matcher.applySettled(text)
      t.ok(matcher.apply(`${text} ${more}`).startsWith(now.slice(0, settled)), `${text} + ${more}`)
    }
  }
  t.same(compileReplacements([]).applySettled('anything'), { text: 'anything', settled: 8 })
})

t.test('one pass: a replacement’s output is not matched again', async (t) => {
  const rules = [rule(['a'], 'b'), rule(['b'], 'c')]
  t.equal(applyReplacements('a b', rules), 'b c')
})

t.test('whitespace inside a trigger matches any whitespace run; regex characters are literal', async (t) => {
  t.equal(applyReplacements('open\n  ai rocks', [rule(['open ai'], 'OpenAI')]), 'OpenAI rocks')
  t.equal(applyReplacements('c++ and c', [rule(['c++'], 'C plus plus')]), 'C plus plus and c')
  t.equal(applyReplacements('a.b axb', [rule(['a.b'], 'dot')]), 'dot axb')
})

t.test('no rules leave the text as it is', async (t) => {
  t.equal(applyReplacements('unchanged text', []), 'unchanged text')
})

t.test('any trigger text works: every printable ASCII character and Unicode punctuation', async (t) => {
  const marks = [
    ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
    '«',
    '»',
    '—',
    '’',
    '…',
    '¿',
    '、',
    '€',
  ]
  let failures = 0
  for (const mark of marks) {
    const trigger = mark === ' ' ? 'e mail' : `e${mark}mail`
    let result = ''
    try {
      result = applyReplacements(`send an ${trigger} now`, [rule([trigger], 'EMAIL')])
    } catch {
      failures++
      continue
    }
    if (result !== 'send an EMAIL now') {
      failures++
      t.fail(`trigger ${JSON.stringify(trigger)}: ${JSON.stringify(result)}`)
    }
  }
  t.equal(failures, 0, `${marks.length} triggers compiled and replaced`)
  t.equal(
    applyReplacements('wi-fi and t-shirt', [rule(['wi-fi'], 'Wi-Fi'), rule(['t-shirt'], 'T-shirt')]),
    'Wi-Fi and T-shirt',
  )
})

t.test('1000 rules with long triggers on a 10,000-word text: correct, no giant pattern', async (t) => {
  let seed = 42
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed / 2 ** 31
  }
  const vocabulary = Array.from({ length: 500 }, (_, i) => `w${i.toString(36)}`)
  const word = () => vocabulary[Math.floor(random() * vocabulary.length)] as string
  const rules = Array.from({ length: 1000 }, (_, i) =>
    rule([Array.from({ length: 20 }, word).join(' '), `planted trigger ${i}`], `<R${i}>`),
  )
  const words = Array.from({ length: 10_000 }, word)
  words.splice(5000, 0, 'planted', 'trigger', '17')
  words.splice(9000, 0, 'planted', 'trigger', '999')
  const result = applyReplacements(words.join(' '), rules)
  t.match(result, /(^| )<R17>( |$)/, 'a planted trigger is replaced')
  t.match(result, /(^| )<R999>( |$)/)
  t.notMatch(result, /planted trigger/, 'both of them')
})

t.test('through the API: a hyphenated trigger, then a transcription, is no 500', async (t) => {
  const app = await build(t, {
    speech: { engine: 'fixture-echo', engines: { 'fixture-echo': { text: 'send an e-mail' } } },
  })
  const added = await injectJson(app, 'POST', '/v1/dictionary/replacements', {
    triggers: ['e-mail'],
    replacement: 'email',
  })
  t.equal(added.status, 200)
  const wav = readFileSync(path.join(audioFixturesDir, 'goforward.wav'))
  const result = await app.inject({
    method: 'POST',
    url: '/v1/transcribe',
    headers: { 'content-type': 'audio/wav' },
    payload: wav,
  })
  t.equal(result.statusCode, 200, result.body)
  t.equal(result.json().text, 'send an email')
})
