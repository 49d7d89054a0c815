/**
 * The editing stage of dictation (docs/desktop.md#editing-by-voice): what the speaker says to shape the text
 * rather than to be written. One stage for every dictation path (POST /v1/dictate, `dictum dictate`, live
 * sessions opened for dictation), on by default (`dictation.commands`); raw transcription routes never
 * apply it. The `rules` provider uses it too, through the plugin SDK.
 *
 * - spoken punctuation and layout: "comma", "period", "question mark", "new line", "new paragraph"…
 *   (spoken-marks.ts);
 * - "scratch that" / "delete that": removes the sentence before it, or, when nothing comes before it in the
 *   text, the previous utterance (the caller's to remove: {@link EditedText.removesPrevious});
 * - "cap <word>", "all caps <word>", "no space" (edits.ts);
 * - "literally <command>": writes the command's words as words ("literally new line" → "new line").
 * A command is only taken where its ordinary reading is unlikely ("a new line of shoes", "scratch that itch").
 */
import { capsAt, noSpaceAt, scratchAt } from './edits.ts'
import { render } from './render.ts'
import { convertMarkAt, type OpenGroups, SPOKEN_MARK_PHRASES } from './spoken-marks.ts'
import { erase, matchPhrase, nextVisible, type Token, tokenize } from './tokens.ts'

export interface EditedText {
  /** The text with the commands carried out. */
  text: string
  /**
   * How many earlier utterances a "scratch that" with nothing before it in this text takes back (0 when
   * none): a live session removes that many previous items.
   */
  removesPrevious: number
}

/** Every command's words, for "literally" to know what it protects. */
const COMMAND_PHRASES: readonly (readonly string[])[] = [
  ...SPOKEN_MARK_PHRASES,
  ['scratch', 'that'],
  ['delete', 'that'],
  ['all', 'caps'],
  ['cap'],
  ['no', 'space'],
  ['literally'],
]

/** Carries out the commands in `text` (see the module comment). Pure and synchronous; linear in the text. */
export function applyDictationCommands(text: string): EditedText {
  const tokens = tokenize(text)
  const removesPrevious = applyCommandTokens(tokens)
  return { text: render(tokens), removesPrevious }
}

/**
 * The stage on tokens (for a provider that works on tokens too): commands are carried out in place, left
 * to right, so "scratch that" takes back what the commands before it made. Returns
 * {@link EditedText.removesPrevious}.
 */
export function applyCommandTokens(tokens: Token[]): number {
  const open: OpenGroups = { quote: 0, paren: 0 }
  let removesPrevious = 0
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i]?.kind !== 'word') continue
    const literal = literallyAt(tokens, i)
    if (literal >= 0) {
      i = literal
      continue
    }
    let end = scratchAt(tokens, i, () => removesPrevious++)
    if (end < 0) end = capsAt(tokens, i)
    if (end < 0) end = noSpaceAt(tokens, i)
    if (end < 0) end = convertMarkAt(tokens, i, open)
    if (end >= 0) i = end
  }
  return removesPrevious
}

/** "literally" followed by a command: "literally" goes, the command's words stay. Returns their end or -1. */
function literallyAt(tokens: Token[], i: number): number {
  if (matchPhrase(tokens, i, ['literally']) < 0) return -1
  const next = nextVisible(tokens, i)
  if (next < 0 || next !== i + 2) return -1
  for (const phrase of COMMAND_PHRASES) {
    const end = matchPhrase(tokens, next, phrase)
    if (end < 0) continue
    erase(tokens, i)
    erase(tokens, i + 1)
    return end
  }
  return -1
}
