/**
 * Joins tokens back into text. Original spacing is kept, except that runs of spaces become one, spaces
 * around generated marks follow English typography ("word, word", "word — word", `"quoted"`, "(aside)"),
 * lines carry no leading or trailing spaces, and a space before , . ; : ! ? is removed ("word ," → "word,").
 */
import type { Token } from './tokens.ts'

export function render(tokens: readonly Token[]): string {
  let out = ''
  let previous: Token | undefined
  let spaced = false
  for (const token of tokens) {
    if (token.kind === 'space') {
      if (token.text !== '') spaced = true
      continue
    }
    if (previous) out += separator(previous, token, spaced)
    out += token.text
    previous = token
    spaced = false
  }
  return tidy(out)
}

function separator(previous: Token, token: Token, spaced: boolean): string {
  if (token.kind === 'newline' || previous.kind === 'newline') return ''
  if (token.kind === 'mark') {
    if (token.attach === 'left' || token.attach === 'break') return ''
    if (token.attach === 'dash') return ' '
    return previous.kind === 'mark' && previous.attach !== 'left' ? '' : ' '
  }
  if (previous.kind === 'mark') {
    if (previous.attach === 'right' || previous.attach === 'break') return ''
    if (previous.attach === 'dash' || token.kind === 'word') return ' '
  }
  return spaced ? ' ' : ''
}

const SPACE_RUNS = /[^\S\n]{2,}/g
const SPACE_AT_LINE_EDGES = /[^\S\n]+\n|\n[^\S\n]+/g
const SPACE_BEFORE_PUNCT = /(?<=[\p{L}\p{N}"'”’)\]])[^\S\n]+(?=[,.;:!?]+(?:\s|$))/gu

function tidy(text: string): string {
  return text
    .replace(SPACE_RUNS, ' ')
    .replace(SPACE_AT_LINE_EDGES, '\n')
    .replace(SPACE_BEFORE_PUNCT, '')
    .replace(/^[^\S\n]+|[^\S\n]+$/g, '')
}
