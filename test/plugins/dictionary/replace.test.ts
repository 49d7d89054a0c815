import t from 'tap'
import { applyReplacements } from '../../../plugins/dictionary/replace.ts'

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
