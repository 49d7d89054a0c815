/**
 * Applies replacement rules to a transcript (docs/api-decisions.md): case-insensitive, whole words (Unicode letters and
 * digits are word characters), the longest trigger wins at a position, one pass (a replacement's output is
 * never matched again). Whitespace inside a trigger matches any run of whitespace.
 */
import type { ReplacementRule } from './schemas.ts'

export interface ReplacementMatcher {
  apply(text: string): string
}

const WORD_CHAR = '[\\p{L}\\p{N}\\p{M}]'

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')
}

function key(text: string): string {
  return text.toLowerCase().replace(/\s+/gu, ' ')
}

/** Compiles the rules once into one regular expression; reuse the matcher while the rules are unchanged. */
export function compileReplacements(rules: readonly ReplacementRule[]): ReplacementMatcher {
  const byTrigger = new Map<string, string>()
  for (const rule of rules) {
    for (const trigger of rule.triggers) {
      const k = key(trigger)
      // The first rule that names a trigger owns it, as in the list order the user sees.
      if (k !== '' && !byTrigger.has(k)) byTrigger.set(k, rule.replacement)
    }
  }
  if (byTrigger.size === 0) return { apply: (text) => text }
  const alternatives = [...byTrigger.keys()]
    .sort((a, b) => b.length - a.length)
    .map((trigger) => trigger.split(' ').map(escapeRegExp).join('\\s+'))
  const pattern = new RegExp(`(?<!${WORD_CHAR})(?:${alternatives.join('|')})(?!${WORD_CHAR})`, 'giu')
  return {
    apply(text: string): string {
      return text.replace(pattern, (match) => byTrigger.get(key(match)) ?? match)
    },
  }
}

/** One-shot form of {@link compileReplacements}. */
export function applyReplacements(text: string, rules: readonly ReplacementRule[]): string {
  return compileReplacements(rules).apply(text)
}
