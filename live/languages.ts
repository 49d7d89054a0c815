/**
 * OpenAI's `languages` (the audio is in one of these) for a live session, with the file route's rules: the
 * engine must transcribe at least one, else INVALID_REQUEST naming the ones it does; the engine's hint is the
 * first one it transcribes (as `language`), and the whole list goes with it for engines that take several.
 */
import type { EngineCapabilities } from '../kernel/contracts/engine.ts'
import { errors } from '../kernel/errors.ts'

const base = (code: string) => code.toLowerCase().split(/[-_]/)[0]

/** True when the engine transcribes `language` (by its base code: `en-GB` is `en`). */
export function transcribes(capabilities: Pick<EngineCapabilities, 'languages'>, language: string): boolean {
  const { languages } = capabilities
  return languages.includes('*') || languages.some((l) => base(l) === base(language))
}

/** The first of `languages` the engine transcribes; throws INVALID_REQUEST (param `languages`) when none. */
export function firstTranscribed(
  languages: readonly string[],
  capabilities: Pick<EngineCapabilities, 'languages'>,
): string {
  const found = languages.find((language) => transcribes(capabilities, language))
  if (found !== undefined) return found
  throw errors.INVALID_REQUEST(
    `none of languages (${languages.join(', ')}) is one this engine transcribes (it does: ${capabilities.languages.join(', ')}).`,
    { extra: { param: 'languages' } },
  )
}
