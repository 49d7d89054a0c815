/**
 * The error codes of the text body of `POST /v1/postprocess`. Registered when this module loads; listed in docs/errors.md (Post-processing).
 */
import { type CatalogueEntry, type Codes, defineErrors } from '../errors/dictum-error.ts'

const entries = {
  EMPTY_TEXT: { status: 400, message: 'Text body is empty.' },
  MISSING_TEXT: {
    status: 400,
    message: 'Missing text: send {"text": "..."} as JSON or the text itself as text/plain.',
  },
  INVALID_TEXT_JSON: { status: 400, message: 'Invalid JSON text payload.' },
  TEXT_NOT_UTF8: { status: 400, message: 'Text body must be UTF-8.' },
} satisfies Record<string, CatalogueEntry>

declare module '../errors/dictum-error.ts' {
  interface ErrorCodes extends Codes<typeof entries> {}
}

export const postprocessErrors = defineErrors('postprocess', entries)
