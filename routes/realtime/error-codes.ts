/**
 * The realtime WebSocket's own error code: a client event it cannot apply. Registered when this module loads; listed in docs/errors.md.
 */
import { type CatalogueEntry, type Codes, defineErrors } from '../../errors/dictum-error.ts'

const entries = {
  REALTIME_EVENT_INVALID: { status: 400, message: (d) => `Invalid realtime event: ${d}` },
} satisfies Record<string, CatalogueEntry>

declare module '../../errors/dictum-error.ts' {
  interface ErrorCodes extends Codes<typeof entries> {}
}

export const realtimeErrors = defineErrors('realtime', entries)
