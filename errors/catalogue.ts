/**
 * The one error catalogue of dictum. Every error that crosses into the kernel, and every error body a
 * route sends, is one of these: a stable `code` (for scripts), an HTTP status and a message. Messages
 * named by the HTTP contract (docs/api.md) are reproduced word for word.
 *
 * Errors are created with `errors.CODE(detail?)`; the catalogue itself is checked by a test (unique codes,
 * statuses in range, messages end with a full stop).
 */

export interface CatalogueEntry {
  status: number
  /** A fixed message, or a function of a detail string. */
  message: string | ((detail: string) => string)
  /** Sent as `Retry-After` (seconds): the condition is expected to pass on its own. */
  retryAfterSeconds?: number
}

const catalogue = {
  // Routing and HTTP surface
  ROUTE_NOT_FOUND: { status: 404, message: 'Route not found.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed.' },
  REQUEST_TOO_LARGE: { status: 413, message: 'Request too large.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: (d) => `Unsupported content type: ${d}.` },
  FORBIDDEN_HOST: { status: 403, message: 'Forbidden: the Host header is not a loopback name.' },
  FORBIDDEN_ORIGIN: { status: 403, message: 'Forbidden: cross-origin requests are not allowed.' },
  UNAUTHORIZED: { status: 401, message: 'Unauthorized: a valid bearer token is required.' },
  INVALID_REQUEST: { status: 400, message: (d) => `Invalid request: ${d}` },
  MALFORMED_REQUEST: { status: 400, message: 'Bad request: the HTTP request is malformed.' },
  HEADERS_TOO_LARGE: { status: 431, message: 'Request headers too large.' },
  REQUEST_TIMEOUT: { status: 408, message: 'Request timeout: the request was not received in time.' },
  TOO_MANY_UPLOADS: { status: 503, message: (d) => `Too many uploads at once: ${d}` },

  // Live dictation (live/, docs/live.md)
  TOO_MANY_SESSIONS: {
    status: 503,
    retryAfterSeconds: 5,
    message: (d) => `Too many live sessions at once: ${d}`,
  },
  SESSION_IDLE_TIMEOUT: { status: 408, message: (d) => `Live session idle: ${d}` },
  SESSION_BACKLOG: { status: 429, message: (d) => `Live session behind: ${d}` },
  SESSION_CLOSED: { status: 503, message: (d) => `Live session closed: ${d}` },
  AUDIO_TOO_FAST: { status: 429, message: (d) => `Live audio arrives faster than it can be processed: ${d}` },
  TOO_MANY_CONNECTIONS: {
    status: 503,
    retryAfterSeconds: 5,
    message: (d) => `Too many connections: ${d}`,
  },

  // Dictionary
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

  // History
  INVALID_HISTORY_QUERY: { status: 400, message: (d) => `Invalid history query: ${d}` },
  HISTORY_ENTRY_NOT_FOUND: {
    status: 404,
    message: (d) => `History entry not found: no entry has the id ${d}.`,
  },
  HISTORY_AUDIO_NOT_FOUND: {
    status: 404,
    message: (d) => `No recording is kept for the history entry ${d}.`,
  },
  INVALID_CORRECTION: { status: 400, message: (d) => `Invalid correction: ${d}` },
  INVALID_CORRECTION_JSON: { status: 400, message: 'Invalid correction: the body is not valid JSON.' },
  HISTORY_CLEAR_UNCONFIRMED: {
    status: 400,
    message: 'Deleting the whole history needs confirmation: send DELETE /v1/history?confirm=true.',
  },

  // Learning from corrections
  SUGGESTION_NOT_FOUND: {
    status: 404,
    message: (d) => `Suggestion not found: no suggestion has the id ${d}.`,
  },
  SUGGESTION_NOT_PENDING: {
    status: 409,
    message: (d) => `The suggestion is ${d}: only a pending suggestion can be accepted or dismissed.`,
  },
  REPLAY_NO_RECORDINGS: {
    status: 409,
    message: (d) => `Nothing to replay: ${d}`,
  },

  // Transcription input
  MISSING_AUDIO: { status: 400, message: 'Missing audio path or audioBase64.' },
  MISSING_AUDIO_BODY: { status: 400, message: 'Missing audio body.' },
  INVALID_AUDIO_JSON: { status: 400, message: 'Invalid JSON audio payload.' },
  AUDIO_PATH_NOT_ABSOLUTE: { status: 400, message: (d) => `Audio path must be absolute: ${d}.` },
  AUDIO_FILE_NOT_FOUND: { status: 400, message: (d) => `Audio file not found: ${d}.` },
  AUDIO_FILE_UNREADABLE: { status: 400, message: (d) => `Audio file is not readable: ${d}.` },
  AUDIO_DECODE_FAILED: { status: 400, message: (d) => `Could not decode audio: ${d}` },
  AUDIO_TOO_LONG: { status: 400, message: (d) => `Audio is too long: ${d}` },
  FFMPEG_NOT_FOUND: {
    status: 503,
    message:
      'Could not decode audio: ffmpeg is needed for this format and was not found. Install it (apt-get install ffmpeg) or set audio.ffmpegPath.',
  },

  // Engines
  ENGINE_NOT_FOUND: { status: 503, message: (d) => `Speech engine not found: ${d}` },
  ENGINE_UNAVAILABLE: { status: 503, message: (d) => `Speech engine unavailable: ${d}` },
  ENGINE_LOAD_FAILED: { status: 503, message: (d) => `Speech engine failed to load: ${d}` },
  ENGINE_CRASHED: { status: 500, message: (d) => `Speech engine crashed: ${d}` },
  ENGINE_TIMEOUT: { status: 504, message: (d) => `Speech engine timed out: ${d}` },
  ENGINE_FAILED: { status: 500, message: (d) => `Speech engine failed: ${d}` },
  ENGINE_MEMORY_LIMIT: { status: 500, message: (d) => `Speech engine exceeded its memory limit: ${d}` },
  ENGINE_BUSY: { status: 503, message: (d) => `Speech engine is busy: ${d}` },
  ENGINE_STREAMING_UNSUPPORTED: {
    status: 501,
    message: (d) => `Speech engine does not stream: ${d}`,
  },
  // OpenAI's transcription fields an engine cannot honour (routes/openai, docs/openai-api.md)
  LOGPROBS_UNSUPPORTED: { status: 400, message: (d) => `The speech engine gives no log probabilities: ${d}` },
  TRANSLATION_UNSUPPORTED: { status: 400, message: (d) => `The speech engine cannot translate: ${d}` },
  DIARIZATION_UNSUPPORTED: {
    status: 400,
    message: (d) =>
      `Speaker diarization is not supported: ${d}, and dictum does not tell speakers apart yet.`,
  },
  REMOTE_ENGINE_FAILED: { status: 502, message: (d) => `Remote transcription server failed: ${d}` },
  REMOTE_ENGINE_TIMEOUT: { status: 504, message: (d) => `Remote transcription server timed out: ${d}` },

  // Live sessions (the realtime WebSocket)
  REALTIME_EVENT_INVALID: { status: 400, message: (d) => `Invalid realtime event: ${d}` },

  // Models
  MODEL_NOT_FOUND: { status: 404, message: (d) => `Model not found: ${d}` },
  MODEL_NOT_INSTALLED: { status: 503, message: (d) => `Model not installed: ${d}` },
  MODEL_INVALID: { status: 503, message: (d) => `Model is missing files or corrupt: ${d}` },
  MODEL_DOWNLOAD_FAILED: { status: 502, message: (d) => `Model download failed: ${d}` },
  MODEL_CHECKSUM_MISMATCH: { status: 502, message: (d) => `Model checksum mismatch: ${d}` },
  MODEL_PULL_INTERRUPTED: { status: 503, message: (d) => `Model pull interrupted: ${d}` },

  // Post-processing
  NO_AI_PROVIDER: { status: 400, message: 'No AI provider is configured.' },
  EMPTY_TEXT: { status: 400, message: 'Text body is empty.' },
  MISSING_TEXT: {
    status: 400,
    message: 'Missing text: send {"text": "..."} as JSON or the text itself as text/plain.',
  },
  INVALID_TEXT_JSON: { status: 400, message: 'Invalid JSON text payload.' },
  TEXT_NOT_UTF8: { status: 400, message: 'Text body must be UTF-8.' },
  PROVIDER_NOT_FOUND: { status: 400, message: (d) => `AI provider not found: ${d}` },
  PROVIDER_UNAVAILABLE: { status: 400, message: (d) => `AI provider unavailable: ${d}` },
  PROVIDER_FAILED: { status: 400, message: (d) => `AI provider failed: ${d}` },
  PROVIDER_TIMEOUT: { status: 400, message: (d) => `AI provider timed out: ${d}` },

  // Settings (the config keys a page may change)
  INVALID_SETTINGS: { status: 400, message: (d) => `Invalid settings payload: ${d}` },
  INVALID_SETTINGS_JSON: { status: 400, message: 'Invalid JSON settings payload.' },
  CONFIG_FILE_CONFLICT: { status: 409, message: (d) => `The config file cannot be changed: ${d}` },
  CONFIG_WRITE_FAILED: { status: 500, message: (d) => `Could not write the config file: ${d}` },
  // Transcription jobs (jobs/)
  JOB_NOT_FOUND: { status: 404, message: (d) => `Job not found: ${d}.` },
  JOB_NO_FILES: { status: 400, message: (d) => `No audio files found: ${d}.` },
  JOB_TOO_MANY_FILES: { status: 400, message: (d) => `Too many files in one submission: ${d}` },
  AUDIO_URL_REFUSED: { status: 400, message: (d) => `Audio URL refused: ${d}` },
  AUDIO_URL_FAILED: { status: 502, message: (d) => `Could not fetch the audio URL: ${d}` },
  JOB_INTERRUPTED: { status: 500, message: (d) => `Job interrupted: ${d}` },
  JOB_CANCELLED: { status: 409, message: 'Job cancelled.' },
  JOBS_UNAVAILABLE: { status: 503, message: (d) => `Job queue unavailable: ${d}` },

  // Config and plugins
  CONFIG_INVALID: { status: 500, message: (d) => `Invalid configuration:\n${d}` },
  CONFIG_UNREADABLE: { status: 500, message: (d) => `Could not read configuration: ${d}` },
  PLUGIN_INVALID: { status: 500, message: (d) => `Invalid plugin: ${d}` },
  PLUGIN_LOAD_FAILED: { status: 500, message: (d) => `Could not load plugin: ${d}` },
  PLUGIN_DUPLICATE: { status: 500, message: (d) => `Duplicate plugin id: ${d}` },
  PLUGIN_API_MISMATCH: { status: 500, message: (d) => `Plugin written for another plugin API: ${d}` },
  FEATURE_MISSING: { status: 500, message: (d) => `A feature needs another that is not in the app: ${d}` },

  // Storage (SQLite in the data dir; storage/failures.ts names what its errors mean)
  DATABASE_BUSY: {
    status: 503,
    retryAfterSeconds: 1,
    message: 'Database is busy: another process holds its lock. Retry shortly.',
  },
  DISK_FULL: {
    status: 507,
    message: 'Disk full: the database could not be written. Free space on the disk of the data directory.',
  },
  DATABASE_READONLY: {
    status: 503,
    message: 'Database is read-only: dictum cannot write to its data directory. Check its permissions.',
  },
  DATABASE_IO_ERROR: {
    status: 500,
    message:
      'Database I/O error: the disk failed while reading or writing the database (details in the log).',
  },
  STORAGE_FAILED: { status: 500, message: 'Storage error.' },

  // Everything else
  INTERNAL: { status: 500, message: 'Internal server error.' },
} satisfies Record<string, CatalogueEntry>

export type ErrorCode = keyof typeof catalogue

export class DictumError extends Error {
  readonly code: ErrorCode
  readonly statusCode: number
  /** Extra fields sent in the response body beside `error` and `code` (e.g. `fix`). */
  readonly extra: Record<string, unknown> | undefined

  constructor(
    code: ErrorCode,
    message: string,
    options?: { cause?: unknown; extra?: Record<string, unknown> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'DictumError'
    this.code = code
    this.statusCode = catalogue[code].status
    this.extra = options?.extra
  }
}

type Factory = (
  detail?: string,
  options?: { cause?: unknown; extra?: Record<string, unknown> },
) => DictumError

/** `errors.MISSING_AUDIO()`, `errors.AUDIO_FILE_NOT_FOUND('/tmp/x.wav')`… */
export const errors = Object.fromEntries(
  Object.entries(catalogue).map(([code, entry]) => {
    const make: Factory = (detail = '', options) => {
      const message = typeof entry.message === 'string' ? entry.message : entry.message(detail)
      return new DictumError(code as ErrorCode, message, options)
    }
    return [code, make]
  }),
) as Record<ErrorCode, Factory>

/** A code of the catalogue (e.g. one read back from another dictum's error body). */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(catalogue, code)
}

export function isDictumError(value: unknown): value is DictumError {
  return value instanceof DictumError
}

/** The catalogue, read-only, for tests and docs. */
export const errorCatalogue: Readonly<Record<ErrorCode, CatalogueEntry>> = catalogue

/** The JSON body of an error response. */
export function errorBody(error: DictumError): Record<string, unknown> {
  return { error: error.message, code: error.code, ...error.extra }
}
