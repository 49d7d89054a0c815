/**
 * The editing commands of the dictation stage (text/commands.ts): "scratch that" / "delete that",
 * "cap <word>", "all caps <word>" and "no space". Each is a command only where its ordinary reading is
 * unlikely, judged by the words next to it as the spoken marks are (spoken-marks.ts): "scratch that itch",
 * "delete that file", "a baseball cap", "written in all caps", "there is no space left" stay words.
 */
import { DETERMINERS } from './spoken-marks.ts'
import { erase, matchPhrase, nextVisible, previousVisible, type Token, wordAt } from './tokens.ts'

const words = (list: string): readonly string[] => list.split(' ')

/** Words before "scratch that" that make it a request to someone, not a command ("don't scratch that."). */
const SCRATCH_BEFORE = new Set(
  words(
    "don't dont didn't never not to can can't could couldn't will won't would should must please i you we they he she it let's",
  ),
)
/**
 * Before "cap": a noun compound ("baseball cap", "price cap"). After it: a noun going on ("cap on") or the verb
 * ("cap it", "cap the costs").
 */
const CAP_BEFORE = new Set(
  words(
    'baseball ice knee hub price market salary bottle swim shower thinking night gas spending rate pay lens sleeping flat red white blue black green wool knit knitted polar graduation dunce cloth hard mob screw',
  ),
)
const CAP_AFTER = new Set(
  words(
    'on of for at in is was will has to and or off it them this that these those the a an his her their our my your its spending costs prices rates',
  ),
)
/** Before "all caps": it describes how something is written ("in all caps"). */
const ALL_CAPS_BEFORE = new Set(words('in with using type typed write written wrote shouting'))
/** Before / after "no space": the words say there is no room ("there is no space left"). */
const NO_SPACE_BEFORE = new Set(
  words(
    "is was are were be been there's theres have has had with left enough leave leaves leaving give gives make makes find found need needs got",
  ),
)
const NO_SPACE_AFTER = new Set(
  words('for in left at to on between available here there inside anymore and or of is was'),
)

/** Layout or a sentence end before which "scratch that" stops removing. */
function endsSentence(token: Token | undefined): boolean {
  if (!token) return true
  if (token.kind === 'newline') return true
  if (token.kind === 'mark') return token.attach === 'break' || /[.!?]/.test(token.text)
  return token.kind === 'punct' && /[.!?]/.test(token.text)
}

/** A visible token that is punctuation, a mark or a line break, or the end of the text. */
function standsAlone(token: Token | undefined): boolean {
  return token === undefined || token.kind !== 'word'
}

function scratchEnd(tokens: Token[], i: number): number {
  return Math.max(matchPhrase(tokens, i, ['scratch', 'that']), matchPhrase(tokens, i, ['delete', 'that']))
}

/**
 * "scratch that" / "delete that" at word `i`: the command and the engine's punctuation after it are
 * erased with the sentence before it in this text. Returns the index of its last token, or -1 when it
 * is no command; `removedNothing` is called when there was nothing before it (a live session then removes the
 * previous utterance).
 */
export function scratchAt(tokens: Token[], i: number, removedNothing: () => void): number {
  const end = scratchEnd(tokens, i)
  if (end < 0) return -1
  const next = nextVisible(tokens, end)
  // Followed by words it is a verb ("scratch that itch"), unless they are the command again.
  if (!standsAlone(tokens[next]) && scratchEnd(tokens, next) < 0) return -1
  const before = wordAt(tokens, previousVisible(tokens, i))
  if (before !== null && SCRATCH_BEFORE.has(before)) return -1
  for (let k = i; k <= end; k++) erase(tokens, k)
  if (tokens[next]?.kind === 'punct' && /^[.!?,;]$/.test(tokens[next].text)) erase(tokens, next)
  let at = previousVisible(tokens, i)
  // The sentence's own end (its full stop) goes with it; a line break before is removed on its own.
  while (
    at >= 0 &&
    tokens[at]?.kind !== 'word' &&
    endsSentence(tokens[at]) &&
    tokens[at]?.kind !== 'newline'
  ) {
    if (tokens[at]?.kind === 'mark' && (tokens[at] as { attach: string }).attach === 'break') break
    erase(tokens, at)
    at = previousVisible(tokens, at)
  }
  let removed = false
  while (at >= 0 && !endsSentence(tokens[at])) {
    erase(tokens, at)
    removed = true
    at = previousVisible(tokens, at)
  }
  if (!removed && at >= 0) {
    // Nothing but layout before it in the sentence: that layout is what is taken back.
    erase(tokens, at)
    removed = true
  }
  if (!removed) removedNothing()
  return end
}

/** "cap <word>" / "all caps <word>" at word `i`: the next word capitalised or in capitals. Returns the end or -1. */
export function capsAt(tokens: Token[], i: number): number {
  const all = matchPhrase(tokens, i, ['all', 'caps'])
  const cap = all < 0 ? matchPhrase(tokens, i, ['cap']) : -1
  const end = all >= 0 ? all : cap
  if (end < 0) return -1
  const target = nextVisible(tokens, end)
  const word = tokens[target]
  if (word?.kind !== 'word') return -1
  const before = wordAt(tokens, previousVisible(tokens, i))
  if (before !== null && (all >= 0 ? ALL_CAPS_BEFORE : CAP_BEFORE).has(before)) return -1
  if (before !== null && DETERMINERS.has(before)) return -1
  if (all < 0 && CAP_AFTER.has(word.text.toLowerCase())) return -1
  for (let k = i; k < target; k++) erase(tokens, k)
  tokens[target] = {
    kind: 'word',
    text: all >= 0 ? word.text.toUpperCase() : word.text.charAt(0).toUpperCase() + word.text.slice(1),
  }
  return target
}

/** "no space" at word `i`: the words either side are joined. Returns the end or -1. */
export function noSpaceAt(tokens: Token[], i: number): number {
  const end = matchPhrase(tokens, i, ['no', 'space'])
  if (end < 0) return -1
  const previous = previousVisible(tokens, i)
  const next = nextVisible(tokens, end)
  const before = wordAt(tokens, previous)
  const after = wordAt(tokens, next)
  if (previous < 0 || next < 0 || tokens[next]?.kind === 'newline') return -1
  if (before !== null && (NO_SPACE_BEFORE.has(before) || DETERMINERS.has(before))) return -1
  if (after !== null && NO_SPACE_AFTER.has(after)) return -1
  for (let k = previous + 1; k < next; k++) erase(tokens, k)
  return end
}
