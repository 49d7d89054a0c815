/**
 * The rules provider works on tokens rather than on the string, so that a spoken command or a filler can be
 * judged by the words next to it and removed without disturbing the text around it.
 */

/** How a generated mark joins its neighbours: `left` sticks to the word before (`,` `.` `?` closing quote),
 * `right` to the word after (opening quote or parenthesis), `break` is a line break, `dash` stands alone. */
export type Attach = 'left' | 'right' | 'break' | 'dash'

export type Token =
  | { kind: 'word'; text: string }
  /** Horizontal whitespace; also what removed tokens become (with empty text). */
  | { kind: 'space'; text: string }
  | { kind: 'newline'; text: string }
  /** Any other single character of the original text. */
  | { kind: 'punct'; text: string }
  /** Punctuation or layout made from a spoken command. */
  | { kind: 'mark'; text: string; attach: Attach }

const TOKEN = /([\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*)|([^\S\r\n]+)|(\r?\n)|(.)/gsu

export function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  for (const match of text.matchAll(TOKEN)) {
    const [whole, word, space, newline] = match
    if (word !== undefined) tokens.push({ kind: 'word', text: word })
    else if (space !== undefined) tokens.push({ kind: 'space', text: space })
    else if (newline !== undefined) tokens.push({ kind: 'newline', text: '\n' })
    else tokens.push({ kind: 'punct', text: whole })
  }
  return tokens
}

/** Blanks a token out: it becomes invisible to neighbour look-ups and renders as nothing. */
export function erase(tokens: Token[], index: number): void {
  tokens[index] = { kind: 'space', text: '' }
}

/** Index of the nearest token before `index` that is not whitespace, or -1. */
export function previousVisible(tokens: Token[], index: number): number {
  for (let i = index - 1; i >= 0; i--) if (tokens[i]?.kind !== 'space') return i
  return -1
}

/** Index of the nearest token after `index` that is not whitespace, or -1. */
export function nextVisible(tokens: Token[], index: number): number {
  for (let i = index + 1; i < tokens.length; i++) if (tokens[i]?.kind !== 'space') return i
  return -1
}

/**
 * Matches a phrase (words as {@link normalWord} gives them) at `start`, its words separated by horizontal
 * whitespace only.
 * Returns the index of the phrase's last token, or -1.
 */
export function matchPhrase(tokens: Token[], start: number, words: readonly string[]): number {
  let at = start
  for (let w = 0; w < words.length; w++) {
    if (w > 0) {
      if (tokens[at + 1]?.kind !== 'space' || tokens[at + 1]?.text === '') return -1
      at += 2
    }
    const token = tokens[at]
    if (token?.kind !== 'word' || normalWord(token.text) !== words[w]) return -1
  }
  return at
}

/** The lower-cased word at `index`, or null when that token is not a word (punctuation, start or end). */
export function wordAt(tokens: Token[], index: number): string | null {
  const token = tokens[index]
  return token?.kind === 'word' ? normalWord(token.text) : null
}

/** How words are compared: lower case, typographic apostrophes as plain ones. */
export function normalWord(text: string): string {
  return text.toLowerCase().replaceAll('’', "'")
}
