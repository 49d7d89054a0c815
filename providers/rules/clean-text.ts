/**
 * The rules provider's pipeline: fillers, spoken commands (dictum's editing stage, through the SDK: the
 * same one every dictation path applies), spacing, capitals. Pure and synchronous.
 */
import { applyCommandTokens, normalWord, renderTokens, tokenize } from '../../sdk/plugin.ts'
import { capitalize } from './capitalize.ts'
import { removeFillers } from './fillers.ts'

export interface CleanSettings {
  fillers: boolean
  /** Carry out spoken punctuation, layout and editing commands. */
  punctuation: boolean
  capitalize: boolean
  /** Extra filler words or phrases, each split into lower-case words (see {@link fillerPhrase}). */
  extraFillers: readonly (readonly string[])[]
}

export function cleanDictation(text: string, settings: CleanSettings): string {
  const tokens = tokenize(text)
  if (settings.fillers) removeFillers(tokens, { extra: settings.extraFillers })
  if (settings.punctuation) applyCommandTokens(tokens)
  const rendered = renderTokens(tokens)
  return settings.capitalize ? capitalize(rendered) : rendered
}

/** A configured filler ("You know,") as the lower-case words it matches (["you", "know"]). */
export function fillerPhrase(phrase: string): string[] {
  return tokenize(phrase)
    .filter((token) => token.kind === 'word')
    .map((token) => normalWord(token.text))
}
