/**
 * The rules provider on real dictation phrasings: lower-case engine output (Vosk, pocketsphinx), punctuated
 * engine output (Whisper, Parakeet) that wrote the spoken commands as words, and sentences whose command
 * words are ordinary words and must come out unchanged.
 */
import t from 'tap'
import { type CleanSettings, cleanDictation } from '../../../providers/rules/clean-text.ts'

const ALL: CleanSettings = { fillers: true, punctuation: true, capitalize: true, extraFillers: [] }

/** [what was dictated, what the user should get] */
const CONVERTS: Array<[string, string]> = [
  ['hi john comma how are you question mark', 'Hi john, how are you?'],
  [
    'thanks for the update period i will review it tomorrow period',
    'Thanks for the update. I will review it tomorrow.',
  ],
  ['dear sarah comma new line thanks for the update period', 'Dear sarah,\nThanks for the update.'],
  ['first point new line second point new line third point', 'First point\nSecond point\nThird point'],
  [
    "that's all for today new paragraph best regards comma new line tom",
    "That's all for today\n\nBest regards,\nTom",
  ],
  ['we need milk comma eggs comma and bread period', 'We need milk, eggs, and bread.'],
  ['can you send me the report by friday question mark', 'Can you send me the report by friday?'],
  ['what are you looking for question mark', 'What are you looking for?'],
  ['this is amazing exclamation point', 'This is amazing!'],
  ['we won exclamation mark', 'We won!'],
  ['the car came to a stop full stop', 'The car came to a stop.'],
  ['the agenda colon budget comma hiring comma and travel', 'The agenda: budget, hiring, and travel'],
  ['i agree semicolon however we need more time', 'I agree; however we need more time'],
  ['he said open quote i will be there close quote', 'He said "I will be there"'],
  ['she said comma open quote i am done period end quote', 'She said, "I am done."'],
  [
    'the meeting open paren which was long close paren ended at noon',
    'The meeting (which was long) ended at noon',
  ],
  ['we shipped it dash finally', 'We shipped it — finally'],
  ['okay period new paragraph next topic colon pricing', 'Okay.\n\nNext topic: pricing'],
  ["I don't know that period", "I don't know that."],
  ['what do i do now question mark', 'What do I do now?'],
  ['period', '.'],
  ['new paragraph', '\n\n'],
  // Engines that punctuate put their own marks around the spoken command; the command wins.
  ['Hi John, comma, how are you? Question mark.', 'Hi John, how are you?'],
  ["I'll be there at five. Period.", "I'll be there at five."],
  ['Best regards. New line. Tom.', 'Best regards.\nTom.'],
  ['Dear team, new paragraph. We are live.', 'Dear team,\n\nWe are live.'],
]

const FILLERS: Array<[string, string]> = [
  ['um so i think we should uh go', 'So I think we should go'],
  ['Um, so I was, uh, thinking we could meet tomorrow.', 'So I was thinking we could meet tomorrow.'],
  ['hmm let me check', 'Let me check'],
  ["er i'm not sure", "I'm not sure"],
  ['erm that is right', 'That is right'],
  ['Ah, I see what you mean.', 'I see what you mean.'],
  ['I think, uh.', 'I think.'],
  ['I see. Hmm. That is odd.', 'I see. That is odd.'],
  ['So, uh... where was I?', 'So, where was I?'],
  ['Umm, uhh, hmmm, yes.', 'Yes.'],
  ['it was, you know, really big', 'It was really big'],
  ['it was, I mean, a disaster', 'It was a disaster'],
  ['um um um', ''],
]

/** Sentences whose command or filler words are meant as words. */
const LEAVES_ALONE: Array<[string, string]> = [
  ['we need a comma separated list', 'a comma … separated: a noun'],
  ['always use the Oxford comma', 'Oxford comma'],
  ['the period of history was long', 'the period of'],
  ['the trial period ends tomorrow', 'trial period'],
  ['we offer a thirty day trial period', 'trial period at the end'],
  ['The time period is over', 'time period'],
  ['my period is late', 'my period'],
  ['the results for period 3 are in', 'period followed by a number'],
  ['we launched a new line of shoes', 'a new line of'],
  ['I need a new line manager', 'new line manager'],
  ["that's a whole new line of thinking", 'whole new line'],
  ['please write a new paragraph about cats', 'a new paragraph'],
  ['the car came to a full stop', 'a full stop'],
  ['there is a big question mark over his future', 'a big question mark over'],
  ['the question mark key is broken', 'question mark key'],
  ['hold shift and press question mark key', 'question mark key, no determiner'],
  ['use comma key twice', 'comma key'],
  ['an exclamation mark at the end', 'an exclamation mark'],
  ['the semicolon is rarely used', 'the semicolon'],
  ['colon cancer screening saves lives', 'colon cancer'],
  ['add a dash of salt', 'a dash of'],
  ['I have to dash home', 'to dash'],
  ['quote unquote expert', 'unquote without an open quote'],
  ['it was, like, huge', '"like" is often meant'],
  ['I like it', '"like" is a verb here'],
  ['you know what I mean', '"you know" without commas'],
  ['to err is human', '"err" is a word'],
  ['take him to the ER now', 'capitals: an abbreviation'],
  ['uh-huh that works', 'uh-huh means yes'],
  ['5 mm screws', '"mm" is a unit'],
]

const ALREADY_CLEAN = [
  'The iPhone is great. iOS too.',
  'See e.g. the docs.',
  'It costs 3.5 dollars at example.com today.',
  'At 5 p.m. we left.',
  'I was there... then I left.',
  'Call me at 10:30, please.',
  'Well-known facts: 1,000 people came.',
  'See the item (i) above.',
  'UM was founded in 1925.',
]

t.test('spoken punctuation and layout become characters', async (t) => {
  for (const [spoken, written] of CONVERTS) t.equal(cleanDictation(spoken, ALL), written, spoken)
})

t.test('hesitation fillers go, with the commas they caused', async (t) => {
  for (const [spoken, written] of FILLERS) t.equal(cleanDictation(spoken, ALL), written, spoken)
})

t.test('command words meant as words are left alone', async (t) => {
  for (const [spoken, why] of LEAVES_ALONE) {
    const expected = spoken.charAt(0).toUpperCase() + spoken.slice(1)
    t.equal(cleanDictation(spoken, ALL), expected, `${spoken} (${why})`)
  }
})

t.test('clean text passes through unchanged', async (t) => {
  for (const text of ALREADY_CLEAN) t.equal(cleanDictation(text, ALL), text, text)
})

t.test('the table holds at least 40 real phrasings', async (t) => {
  t.ok(CONVERTS.length + FILLERS.length + LEAVES_ALONE.length >= 40)
})

t.test('spacing: runs collapse, no space before punctuation, none at line ends', async (t) => {
  t.equal(cleanDictation('hello   world ,  how are you', ALL), 'Hello world, how are you')
  t.equal(cleanDictation('  spaces at the ends  ', ALL), 'Spaces at the ends')
  t.equal(cleanDictation('one new line   two', ALL), 'One\nTwo')
  t.equal(cleanDictation('done !', ALL), 'Done!')
})

t.test('capitals: sentence starts, after line breaks and "I", never inside names or code', async (t) => {
  t.equal(cleanDictation("i'm sure i'll manage. i've done it", ALL), "I'm sure I'll manage. I've done it")
  t.equal(cleanDictation('one. two! three? four', ALL), 'One. Two! Three? Four')
  t.equal(cleanDictation('see mr. smith. then go', ALL), 'See mr. smith. Then go', 'no capital after "mr."')
  t.equal(cleanDictation('npm.js is fine', ALL), 'npm.js is fine', 'no capital on a URL-like word')
  t.equal(cleanDictation('i.e. this one', ALL), 'i.e. this one')
  t.equal(cleanDictation('open quote hello close quote he said', ALL), '"Hello" he said')
})

t.test('a transcript that is only fillers becomes empty', async (t) => {
  t.equal(cleanDictation('Hmm.', ALL), '')
  t.equal(cleanDictation('uh', ALL), '')
})
