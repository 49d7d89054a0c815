/**
 * History's error codes: its query, entries by id and their recordings, clearing it. Registered when this module loads; listed in docs/errors.md (History).
 */
import { type CatalogueEntry, type Codes, defineErrors } from '../errors/dictum-error.ts'

const entries = {
  INVALID_HISTORY_QUERY: { status: 400, message: (d) => `Invalid history query: ${d}` },
  HISTORY_ENTRY_NOT_FOUND: {
    status: 404,
    message: (d) => `History entry not found: no entry has the id ${d}.`,
  },
  HISTORY_AUDIO_NOT_FOUND: {
    status: 404,
    message: (d) => `No recording is kept for the history entry ${d}.`,
  },
  HISTORY_CLEAR_UNCONFIRMED: {
    status: 400,
    message: 'Deleting the whole history needs confirmation: send DELETE /v1/history?confirm=true.',
  },
} satisfies Record<string, CatalogueEntry>

declare module '../errors/dictum-error.ts' {
  interface ErrorCodes extends Codes<typeof entries> {}
}

export const historyErrors = defineErrors('history', entries)
