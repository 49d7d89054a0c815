/**
 * Transcription jobs' error codes: finding, queueing, fetching and running jobs. Registered when this module loads; listed in docs/errors.md.
 */
import { type CatalogueEntry, type Codes, defineErrors } from '../errors/dictum-error.ts'

const entries = {
  JOB_NOT_FOUND: { status: 404, message: (d) => `Job not found: ${d}.` },
  JOB_NO_FILES: { status: 400, message: (d) => `No audio files found: ${d}.` },
  JOB_TOO_MANY_FILES: { status: 400, message: (d) => `Too many files in one submission: ${d}` },
  AUDIO_URL_REFUSED: { status: 400, message: (d) => `Audio URL refused: ${d}` },
  AUDIO_URL_FAILED: { status: 502, message: (d) => `Could not fetch the audio URL: ${d}` },
  JOB_INTERRUPTED: { status: 500, message: (d) => `Job interrupted: ${d}` },
  JOB_CANCELLED: { status: 409, message: 'Job cancelled.' },
  JOBS_UNAVAILABLE: { status: 503, message: (d) => `Job queue unavailable: ${d}` },
} satisfies Record<string, CatalogueEntry>

declare module '../errors/dictum-error.ts' {
  interface ErrorCodes extends Codes<typeof entries> {}
}

export const jobsErrors = defineErrors('jobs', entries)
