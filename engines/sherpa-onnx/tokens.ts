/**
 * tokens.txt and bpe.vocab: reading them, and deriving a bpe.vocab from tokens.txt for models that ship none.
 *
 * sherpa-onnx's hotword encoder (ssentencepiece) exits the process on a vocab line that is not
 * `piece<whitespace>score` (an empty line included), so a vocab is only used after {@link checkBpeVocab}.
 */
import { readFile, writeFile } from 'node:fs/promises'

export interface TokenTable {
  /** Symbol of each id (index = id). */
  symbols: string[]
  /** Characters the model can spell (letters of every piece, the word marker removed). */
  characters: Set<string>
  /** Letter case the vocabulary uses: hotwords are converted to it. */
  letterCase: 'upper' | 'lower' | 'mixed'
}

export const WORD_MARK = '\u2581'

export class TokenFileError extends Error {
  override name = 'TokenFileError'
}

function letterCaseOf(characters: Set<string>): TokenTable['letterCase'] {
  let upper = false
  let lower = false
  for (const c of characters) {
    if (c !== c.toLowerCase()) upper = true
    if (c !== c.toUpperCase()) lower = true
  }
  if (upper && !lower) return 'upper'
  if (lower && !upper) return 'lower'
  return 'mixed'
}

/** Parses tokens.txt (`symbol id` per line, ids 0..n-1 in any order). */
export function parseTokens(text: string): TokenTable {
  const symbols: string[] = []
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  for (const [index, line] of lines.entries()) {
    const match = /^(.*)[ \t](\d+)\r?$/.exec(line)
    if (!match) throw new TokenFileError(`line ${index + 1} is not "symbol id"`)
    const id = Number(match[2])
    if (id >= lines.length || symbols[id] !== undefined)
      throw new TokenFileError(`line ${index + 1}: bad id ${id}`)
    symbols[id] = match[1]!
  }
  if (symbols.length === 0) throw new TokenFileError('it is empty')
  const characters = new Set<string>()
  for (const symbol of symbols) {
    if (/^<.*>$/.test(symbol)) continue
    for (const c of symbol.replaceAll(WORD_MARK, '')) characters.add(c)
  }
  return { symbols, characters, letterCase: letterCaseOf(characters) }
}

export async function readTokens(file: string): Promise<TokenTable> {
  return parseTokens(await readFile(file, 'utf8'))
}

/** Problems of a bpe.vocab for a vocabulary: malformed lines or pieces the model does not know. */
export function checkBpeVocab(text: string, tokens: TokenTable): string | null {
  const known = new Set(tokens.symbols)
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  if (lines.length === 0) return 'it is empty'
  for (const [index, line] of lines.entries()) {
    const fields = line.trim().split(/\s+/)
    if (fields.length !== 2 || !Number.isFinite(Number(fields[1]))) {
      return `line ${index + 1} is not "piece score"`
    }
    if (!known.has(fields[0]!)) return `line ${index + 1}: piece ${fields[0]} is not in tokens.txt`
  }
  return null
}

/**
 * A bpe.vocab holding every piece of tokens.txt with one score, which makes ssentencepiece split words by
 * longest match (the upstream NeMo hotword example derives it the same way). Special `<…>` symbols are left
 * out so a hotword never encodes to one.
 */
export function deriveBpeVocab(tokens: TokenTable): string {
  const lines = tokens.symbols
    .filter((symbol) => symbol.length > 0 && !/\s/.test(symbol) && !/^<.*>$/.test(symbol))
    .map((symbol) => `${symbol}\t-1.0`)
  return `${lines.join('\n')}\n`
}

export async function writeDerivedBpeVocab(file: string, tokens: TokenTable): Promise<void> {
  await writeFile(file, deriveBpeVocab(tokens), 'utf8')
}
