/**
 * The error codes of OpenAI's transcription fields an engine cannot honour (docs/openai-api.md). Registered when this module loads; listed in docs/errors.md.
 */
import { type CatalogueEntry, type Codes, defineErrors } from '../../errors/dictum-error.ts'

const entries = {
  LOGPROBS_UNSUPPORTED: { status: 400, message: (d) => `The speech engine gives no log probabilities: ${d}` },
  TRANSLATION_UNSUPPORTED: { status: 400, message: (d) => `The speech engine cannot translate: ${d}` },
  DIARIZATION_UNSUPPORTED: {
    status: 400,
    message: (d) =>
      `Speaker diarization is not supported: ${d}, and dictum does not tell speakers apart yet.`,
  },
} satisfies Record<string, CatalogueEntry>

declare module '../../errors/dictum-error.ts' {
  interface ErrorCodes extends Codes<typeof entries> {}
}

export const openaiErrors = defineErrors('openai', entries)
