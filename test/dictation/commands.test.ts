/**
 * The editing stage (text/commands.ts) on text: engine output with spoken commands, lower-case
 * (pocketsphinx, Vosk) and punctuated (Whisper), and sentences whose words only look like commands, which
 * must come out unchanged.
 */
import t from 'tap'
import { applyDictationCommands } from '../../text/commands.ts'

const edit = (text: string) => applyDictationCommands(text).text

t.test('spoken punctuation and layout become characters, without an AI provider', async (t) => {
  t.equal(edit('hello comma how are you question mark'), 'hello, how are you?')
  t.equal(edit('dear sam comma new line thanks period'), 'dear sam,\nthanks.')
  t.equal(edit('one new paragraph two'), 'one\n\ntwo')
  t.equal(edit('Hi, comma, there.'), 'Hi, there.')
})

t.test('"scratch that" / "delete that" removes the sentence before it', async (t) => {
  t.equal(edit('I like cats. Scratch that. I like dogs.'), 'I like dogs.')
  t.equal(edit('first thing period second thing scratch that'), 'first thing.')
  t.equal(edit('send it to bob delete that'), '')
  t.equal(edit('the plan is good period it is bad, scratch that.'), 'the plan is good.')
  t.equal(edit('hello new line scratch that'), 'hello', 'a layout command alone is taken back')
  // what the commands before it made goes with the sentence
  t.equal(edit('keep this period drop comma this scratch that'), 'keep this.')
})

t.test('"scratch that" with nothing before it takes back the previous utterance', async (t) => {
  t.same(applyDictationCommands('scratch that'), { text: '', removesPrevious: 1 })
  t.same(applyDictationCommands('Scratch that.'), { text: '', removesPrevious: 1 })
  t.same(applyDictationCommands('delete that, I meant tuesday'), {
    text: 'I meant tuesday',
    removesPrevious: 1,
  })
  t.same(applyDictationCommands('scratch that scratch that'), { text: '', removesPrevious: 2 })
  t.same(applyDictationCommands('one scratch that scratch that'), { text: '', removesPrevious: 1 })
})

t.test('cap, all caps and no space', async (t) => {
  t.equal(edit('ask cap john about it'), 'ask John about it')
  t.equal(edit('it is all caps urgent'), 'it is URGENT')
  t.equal(edit('visit dictum no space local'), 'visit dictumlocal')
  t.equal(edit('cap paris comma cap france'), 'Paris, France')
})

t.test('"literally" writes a command as words', async (t) => {
  t.equal(edit('type literally new line here'), 'type new line here')
  t.equal(edit('the word literally comma'), 'the word comma')
  t.equal(edit('say literally scratch that'), 'say scratch that')
  t.equal(edit('literally cap'), 'cap')
  t.equal(edit('I literally ran home'), 'I literally ran home', 'before an ordinary word it is a word')
})

t.test('words that only look like commands stay as they are', async (t) => {
  const keeps = [
    'we launched a new line of shoes',
    'a new line of shoes',
    'scratch that itch',
    'please delete that file',
    "don't scratch that.",
    'he wore a baseball cap',
    'the cap on the bottle',
    'there is a price cap for rent',
    'we should cap the costs',
    'she wrote it in all caps',
    'there is no space left',
    'no space for doubt',
    'we have no space',
    'a comma separated list',
    'the trial period ends',
  ]
  for (const text of keeps) t.equal(edit(text), text, text)
  t.equal(applyDictationCommands('scratch that itch').removesPrevious, 0)
})

t.test('every piece of text comes back when there is no command', async (t) => {
  const text = 'Prices rose 3.5% in Q1 (see https://example.com/a-b), e.g. "caps" — fine!'
  t.equal(edit(text), text)
})
