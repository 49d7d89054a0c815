/** OpenAI's `languages` of a transcript: what every reply and document that carries them writes. */

/**
 * OpenAI's `languages`: what the engine detected (or was told and used), else the engine's only language,
 * else `[]` (it cannot tell). Codes are ISO 639-1, without region.
 */
export function detectedLanguages(
  transcript: { language: string | null },
  engineLanguages: readonly string[],
): Array<{ code: string }> {
  const only = engineLanguages.length === 1 && engineLanguages[0] !== '*' ? engineLanguages[0] : undefined
  const code = transcript.language ?? only
  return code ? [{ code: code.toLowerCase().split(/[-_]/)[0] as string }] : []
}
