/**
 * The custom words an engine gets, for a file's pieces and for a live session's items alike: the
 * dictionary's, then the request's own (OpenAI's `keywords`, a realtime session's `keywords`) that the
 * dictionary does not already have (compared without case); none for an engine without the `customWords`
 * capability. Files and sessions once mapped them each on their own; this is the one mapping.
 */
import type { DictionaryService } from '../dictionary/service.ts'
import type { EngineCapabilities, EngineCustomWord } from '../kernel/contracts/engine.ts'

/** A request's keywords as custom words of that request only: the engine's default weight, no aliases. */
export function requestWords(keywords: readonly string[]): EngineCustomWord[] {
  return keywords.map((text) => ({ text, weight: null, aliases: [] }))
}

/**
 * The words handed to the engine, as fresh objects: the engine (or its host's message) may keep them, and
 * the dictionary's own list (cached between edits) must not change with it.
 */
export function engineCustomWords(
  capabilities: Pick<EngineCapabilities, 'customWords'>,
  dictionary: Pick<DictionaryService, 'customWords'>,
  request: readonly EngineCustomWord[] = [],
): EngineCustomWord[] {
  if (!capabilities.customWords) return []
  const own = dictionary.customWords()
  const known = new Set(own.map((w) => w.text.toLowerCase()))
  const added = request.filter((w) => !known.has(w.text.toLowerCase()))
  return [...own, ...added].map((w) => ({ text: w.text, weight: w.weight, aliases: [...w.aliases] }))
}
