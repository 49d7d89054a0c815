/**
 * The dictionary's error codes: its payloads, its limits, entries by id. Registered when this module loads; listed in docs/errors.md (Dictionary).
 */
import { type CatalogueEntry, type Codes, defineErrors } from '../errors/dictum-error.ts'

const entries = {
  INVALID_REPLACEMENTS_JSON: { status: 400, message: 'Invalid JSON replacements payload.' },
  INVALID_CUSTOM_WORDS_JSON: { status: 400, message: 'Invalid JSON custom words payload.' },
  INVALID_REPLACEMENTS: { status: 400, message: (d) => `Invalid replacements payload: ${d}` },
  INVALID_CUSTOM_WORDS: { status: 400, message: (d) => `Invalid custom words payload: ${d}` },
  TOO_MANY_REPLACEMENTS: {
    status: 400,
    message: (d) => `Too many replacement rules: ${d} (at most 1000).`,
  },
  TOO_MANY_CUSTOM_WORDS: { status: 400, message: (d) => `Too many custom words: ${d} (at most 256).` },
  REPLACEMENT_NOT_FOUND: {
    status: 404,
    message: (d) => `Replacement rule not found: no rule has the id ${d}.`,
  },
  CUSTOM_WORD_NOT_FOUND: { status: 404, message: (d) => `Custom word not found: no word has the id ${d}.` },
} satisfies Record<string, CatalogueEntry>

declare module '../errors/dictum-error.ts' {
  interface ErrorCodes extends Codes<typeof entries> {}
}

export const dictionaryErrors = defineErrors('dictionary', entries)
