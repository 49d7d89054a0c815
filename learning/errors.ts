/**
 * Learning's error codes: corrections and the suggestions they make. Registered when this module loads;
 * listed in docs/errors.md (Learning from corrections).
 */
import { type CatalogueEntry, type Codes, defineErrors } from '../errors/dictum-error.ts'

const entries = {
  INVALID_CORRECTION: { status: 400, message: (d) => `Invalid correction: ${d}` },
  INVALID_CORRECTION_JSON: { status: 400, message: 'Invalid correction: the body is not valid JSON.' },
  SUGGESTION_NOT_FOUND: {
    status: 404,
    message: (d) => `Suggestion not found: no suggestion has the id ${d}.`,
  },
  SUGGESTION_NOT_PENDING: {
    status: 409,
    message: (d) => `The suggestion is ${d}: only a pending suggestion can be accepted or dismissed.`,
  },
  REPLAY_NO_RECORDINGS: { status: 409, message: (d) => `Nothing to replay: ${d}` },
} satisfies Record<string, CatalogueEntry>

declare module '../errors/dictum-error.ts' {
  interface ErrorCodes extends Codes<typeof entries> {}
}

export const learningErrors = defineErrors('learning', entries)
