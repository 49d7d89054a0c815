/**
 * Spoken punctuation and layout ("comma", "question mark", "new paragraph") turned into characters: part of
 * the editing stage (text/commands.ts).
 *
 * The same words are ordinary nouns in other sentences ("a comma separated list", "the trial period ends",
 * "we launched a new line of shoes"), so a command is only converted where a noun reading is unlikely:
 * - never right after a determiner or possessive ("a", "the", "my", "every"…): a sentence cannot end there;
 * - never right after a word that makes it a compound noun ("Oxford comma", "trial period", "brand new line");
 * - never right before a word that continues the noun ("comma separated", "period of", "colon cancer");
 * - a mark that joins the word before (, . ? : ; —) never at the very start of a text that goes on;
 * - closing quotes and parentheses only when one was opened by voice before.
 * Punctuation that the speech engine put around a command ("Hi, comma, there") is dropped in its favour.
 */
import {
  type Attach,
  erase,
  matchPhrase,
  nextVisible,
  previousVisible,
  type Token,
  wordAt,
} from './tokens.ts'

interface SpokenCommand {
  words: readonly string[]
  mark: string
  attach: Attach
  /** Words that, right before the command, make it a noun (besides the determiners). */
  nounBefore?: readonly string[]
  /** Words that, right after the command, make it a noun. */
  nounAfter?: readonly string[]
  /** A number right after it means a noun ("period 3"). */
  nounBeforeNumber?: boolean
  /** Group this mark opens or closes; a close is only converted while its group is open. */
  opens?: 'quote' | 'paren'
  closes?: 'quote' | 'paren'
}

/** Words after which a sentence cannot end, so what follows is a noun. */
export const DETERMINERS = new Set(
  'a an the my your his her its our their each every no any another which whose per extra missing'.split(' '),
)

const ORDINALS = 'first second third fourth fifth sixth seventh eighth ninth tenth last next same'
const PERIOD_BEFORE = `${ORDINALS} trial grace time waiting notice probation probationary billing reporting transition transitional introductory rest study holiday warranty incubation settlement sampling sample accounting fiscal payment free honeymoon lock-in cooling-off short long brief extended certain given specified entire whole historical difficult tough critical crucial formative colonial medieval victorian romantic baroque classical ancient prehistoric jurassic cretaceous triassic renaissance edwardian georgian elizabethan tudor postwar post-war interwar quiet busy stressful`
const PERIOD_AFTER =
  'of in for during between from since until to at on is was were are will would has had ends ended begins began starts started lasts lasted expires expired pain pains cramps drama dramas piece pieces costume costumes film films movie movies tracker'
const LINE_BEFORE = 'brand whole entire product latest spring summer autumn fall winter'
const LINE_AFTER =
  'of manager managers item items character characters break breaks feed is was will has includes features'
const COLON_BEFORE = 'sigmoid transverse ascending descending spastic irritable'
const COLON_AFTER =
  'cancer cancers surgery polyp polyps health cleanse cleansing wall lining function disease inflammation'
const COMMA_BEFORE = 'oxford serial inverted trailing leading decimal upside-down'
const COMMA_AFTER = 'separated delimited splice splices key character characters sign symbol button'
const QUESTION_BEFORE = 'big huge giant serious real major little small lingering'
const QUESTION_AFTER = 'over about hangs hanging remains above key button symbol sign'
const DASH_BEFORE =
  "to i you we they he she i'll we'll you'll they'll he'll she'll must gotta quick mad hundred metre meter yard"
const DASH_AFTER =
  'of off out home away over back across through into to for around in up down board cam cams camera'

const words = (list: string): readonly string[] => list.split(' ')

function command(phrase: string, mark: string, attach: Attach, extra: Partial<SpokenCommand> = {}) {
  return { words: words(phrase), mark, attach, ...extra } satisfies SpokenCommand
}

const periodGuards = {
  nounBefore: words(PERIOD_BEFORE),
  nounAfter: words(PERIOD_AFTER),
  nounBeforeNumber: true,
}
const lineGuards = { nounBefore: words(LINE_BEFORE), nounAfter: words(LINE_AFTER) }

/** Longest phrases first, so "new paragraph" wins over nothing and "close quote" over "close". */
const COMMANDS: readonly SpokenCommand[] = [
  command('exclamation mark', '!', 'left'),
  command('exclamation point', '!', 'left'),
  command('question mark', '?', 'left', {
    nounBefore: words(QUESTION_BEFORE),
    nounAfter: words(QUESTION_AFTER),
  }),
  command('full stop', '.', 'left', { nounBefore: words('complete sudden abrupt grinding') }),
  command('new paragraph', '\n\n', 'break', {
    nounBefore: words('whole entire brand'),
    nounAfter: words('of is was about'),
  }),
  command('new line', '\n', 'break', lineGuards),
  command('newline', '\n', 'break', lineGuards),
  command('open quote', '"', 'right', { opens: 'quote' }),
  command('close quote', '"', 'left', { closes: 'quote' }),
  command('end quote', '"', 'left', { closes: 'quote' }),
  command('unquote', '"', 'left', { closes: 'quote' }),
  command('open parenthesis', '(', 'right', { opens: 'paren' }),
  command('open paren', '(', 'right', { opens: 'paren' }),
  command('close parenthesis', ')', 'left', { closes: 'paren' }),
  command('close paren', ')', 'left', { closes: 'paren' }),
  command('comma', ',', 'left', { nounBefore: words(COMMA_BEFORE), nounAfter: words(COMMA_AFTER) }),
  command('period', '.', 'left', periodGuards),
  command('colon', ':', 'left', { nounBefore: words(COLON_BEFORE), nounAfter: words(COLON_AFTER) }),
  command('semicolon', ';', 'left'),
  command('dash', '—', 'dash', { nounBefore: words(DASH_BEFORE), nounAfter: words(DASH_AFTER) }),
]

const BY_FIRST_WORD = new Map<string, SpokenCommand[]>()
for (const spoken of COMMANDS) {
  const first = spoken.words[0] as string
  BY_FIRST_WORD.set(first, [...(BY_FIRST_WORD.get(first) ?? []), spoken])
}

/** Engine punctuation next to a command that the command replaces. */
const ENGINE_MARKS = new Set([',', '.', ';', ':', '!', '?'])

/** Voice-opened quotes and parentheses not yet closed: a close is only converted while its group is open. */
export interface OpenGroups {
  quote: number
  paren: number
}

/** The words of every spoken mark ("comma", "question mark"…), for "literally" to know what it protects. */
export const SPOKEN_MARK_PHRASES: readonly (readonly string[])[] = COMMANDS.map((spoken) => spoken.words)

/**
 * Converts the spoken mark starting at word `i`, if there is one there and it reads as a command. Returns
 * the index of its last token, or -1 (nothing converted).
 */
export function convertMarkAt(tokens: Token[], i: number, open: OpenGroups): number {
  const token = tokens[i]
  if (token?.kind !== 'word') return -1
  const candidates = BY_FIRST_WORD.get(token.text.toLowerCase())
  if (!candidates) return -1
  for (const spoken of candidates) {
    const end = matchPhrase(tokens, i, spoken.words)
    if (end < 0 || !isCommand(tokens, i, end, spoken, open)) continue
    if (spoken.opens) open[spoken.opens]++
    if (spoken.closes) open[spoken.closes]--
    place(tokens, i, end, spoken)
    return end
  }
  return -1
}

function isCommand(
  tokens: Token[],
  start: number,
  end: number,
  spoken: SpokenCommand,
  open: OpenGroups,
): boolean {
  if (spoken.closes && open[spoken.closes] <= 0) return false
  const previous = previousVisible(tokens, start)
  const next = nextVisible(tokens, end)
  // "Semicolon is my favourite": a mark that joins the word before cannot open a text that goes on.
  if (previous < 0 && next >= 0 && (spoken.attach === 'left' || spoken.attach === 'dash')) return false
  const before = wordAt(tokens, previous)
  const after = wordAt(tokens, next)
  if (before !== null && (DETERMINERS.has(before) || spoken.nounBefore?.includes(before))) return false
  if (after === null) return true
  if (spoken.nounAfter?.includes(after)) return false
  return !(spoken.nounBeforeNumber && /^\p{N}/u.test(after))
}

function place(tokens: Token[], start: number, end: number, spoken: SpokenCommand): void {
  for (let i = start + 1; i <= end; i++) erase(tokens, i)
  tokens[start] = { kind: 'mark', text: spoken.mark, attach: spoken.attach }
  const dropBefore = spoken.attach === 'left' || spoken.attach === 'dash'
  if (dropBefore && !spoken.closes) dropEngineMark(tokens, previousVisible(tokens, start), -1)
  if (!spoken.closes) dropEngineMark(tokens, nextVisible(tokens, end), 1)
}

/** Erases a lone engine punctuation mark (never one of an ellipsis or a "?!" run). */
function dropEngineMark(tokens: Token[], index: number, direction: 1 | -1): void {
  const token = tokens[index]
  if (token?.kind !== 'punct' || !ENGINE_MARKS.has(token.text)) return
  if (tokens[index + direction]?.kind === 'punct') return
  erase(tokens, index)
}
