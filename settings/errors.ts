/**
 * The error codes of the settings a page may change (`PATCH /v1/settings`). Registered when this module loads; listed in docs/errors.md (Settings).
 */
import { type CatalogueEntry, type Codes, defineErrors } from '../errors/dictum-error.ts'

const entries = {
  INVALID_SETTINGS: { status: 400, message: (d) => `Invalid settings payload: ${d}` },
  INVALID_SETTINGS_JSON: { status: 400, message: 'Invalid JSON settings payload.' },
} satisfies Record<string, CatalogueEntry>

declare module '../errors/dictum-error.ts' {
  interface ErrorCodes extends Codes<typeof entries> {}
}

export const settingsErrors = defineErrors('settings', entries)
