/**
 * Live dictation's error codes (docs/live.md): sessions over the cap, idle, behind, closed, fed too fast. Registered when this module loads; listed in docs/errors.md.
 */
import { type CatalogueEntry, type Codes, defineErrors } from '../errors/dictum-error.ts'

const entries = {
  TOO_MANY_SESSIONS: {
    status: 503,
    retryAfterSeconds: 5,
    message: (d) => `Too many live sessions at once: ${d}`,
  },
  SESSION_IDLE_TIMEOUT: { status: 408, message: (d) => `Live session idle: ${d}` },
  SESSION_BACKLOG: { status: 429, message: (d) => `Live session behind: ${d}` },
  SESSION_CLOSED: { status: 503, message: (d) => `Live session closed: ${d}` },
  AUDIO_TOO_FAST: { status: 429, message: (d) => `Live audio arrives faster than it can be processed: ${d}` },
} satisfies Record<string, CatalogueEntry>

declare module '../errors/dictum-error.ts' {
  interface ErrorCodes extends Codes<typeof entries> {}
}

export const liveErrors = defineErrors('live', entries)
