/** The rules provider's pipeline: fillers, spoken punctuation, spacing, capitals. Pure and synchronous. */
import { capitalize } from './capitalize.ts'
import { removeFillers } from './fillers.ts'
import { render } from './render.ts'
import { convertSpokenMarks } from './spoken-marks.ts'
import { normalWord, tokenize } from './tokens.ts'

export interface CleanSettings {
  fillers: boolean
  punctuation: boolean
  capitalize: boolean
  /** Extra filler words or phrases, each split into lower-case words (see {@link fillerPhrase}). */
  extraFillers: readonly (readonly string[])[]
}

export function cleanDictation(text: string, settings: CleanSettings): string {
  const tokens = tokenize(text)
  if (settings.fillers) removeFillers(tokens, { extra: settings.extraFillers })
  if (settings.punctuation) convertSpokenMarks(tokens)
  const rendered = render(tokens)
  return settings.capitalize ? capitalize(rendered) : rendered
}

/** A configured filler ("You know,") as the lower-case words it matches (["you", "know"]). */
export function fillerPhrase(phrase: string): string[] {
  return tokenize(phrase)
    .filter((token) => token.kind === 'word')
    .map((token) => normalWord(token.text))
}
