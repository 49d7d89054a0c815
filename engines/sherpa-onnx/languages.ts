/**
 * Language hints. Whisper exits the process when given a language its model lacks, so a language reaches
 * the recognizer only after it is checked against the model's own list.
 */
import type { SherpaFamily } from './options.ts'

const SENSE_VOICE_LANGUAGES = ['auto', 'zh', 'en', 'ja', 'ko', 'yue']

/** Languages a `language` option may name for this model, or null when the family takes no language. */
export function selectableLanguages(family: SherpaFamily, declared: string[] | null): string[] | null {
  if (family === 'whisper') return declared ?? ['en']
  if (family === 'sense-voice') return SENSE_VOICE_LANGUAGES
  return null
}

/**
 * The language to pass: the request's hint when the model knows it, else the configured one, else ''
 * (auto-detect). English-only Whisper takes none at all.
 */
export function languageToUse(
  family: SherpaFamily,
  declared: string[] | null,
  configured: string | undefined,
  requested: string | undefined,
): string {
  const allowed = selectableLanguages(family, declared)
  if (allowed === null) return ''
  if (family === 'whisper' && allowed.length <= 1) return ''
  const hint = requested?.toLowerCase()
  if (hint !== undefined && allowed.includes(hint)) return hint
  return configured ?? ''
}

/** A problem with the configured `language` option, or null. */
export function configuredLanguageProblem(
  family: SherpaFamily,
  declared: string[] | null,
  configured: string | undefined,
): string | null {
  if (configured === undefined) return null
  const allowed = selectableLanguages(family, declared)
  if (allowed === null) return null
  return allowed.includes(configured)
    ? null
    : `language "${configured}" is not one this model knows (${allowed.slice(0, 12).join(', ')}${allowed.length > 12 ? ', …' : ''})`
}

/** The language a result reports: what the model says (Whisper `en`, SenseVoice `<|en|>`), else the only one. */
export function resultLanguage(reported: string | undefined, modelLanguages: string[]): string | undefined {
  const clean = reported?.replace(/^<\|/, '').replace(/\|>$/, '').trim()
  if (clean) return clean
  return modelLanguages.length === 1 && modelLanguages[0] !== '*' ? modelLanguages[0] : undefined
}
