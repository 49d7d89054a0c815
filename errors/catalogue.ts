/**
 * The core's error codes: the HTTP surface, audio, engines, models, providers, config and plugins, storage;
 * the codes a plugin may throw (sdk/plugin.ts exports `errors`). Every error that crosses into the kernel,
 * and every error body a route sends, has a stable `code` (for scripts), an HTTP status and a message.
 * Messages named by the HTTP contract (docs/api.md) are reproduced word for word. A feature's own codes live
 * in its folder (`dictionary/errors.ts`…), made the same way (errors/dictum-error.ts).
 *
 * Errors are created with `errors.CODE(detail?)`; test/errors/catalogue.test.ts checks every code (unique,
 * statuses in range, messages end with a full stop, each listed in docs/errors.md with its status).
 */
import { type CatalogueEntry, type Codes, defineErrors } from './dictum-error.ts'

export {
  type CatalogueEntry,
  DictumError,
  type ErrorCode,
  type ErrorFactory,
  entryOf,
  errorBody,
  isDictumError,
  isErrorCode,
} from './dictum-error.ts'

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

  // Wyoming (wyoming/, docs/wyoming.md): it is no feature of the app, so its code is the core's
  TOO_MANY_CONNECTIONS: {
    status: 503,
    retryAfterSeconds: 5,
    message: (d) => `Too many connections: ${d}`,
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

  // Remote engines
  REMOTE_ENGINE_FAILED: { status: 502, message: (d) => `Remote transcription server failed: ${d}` },
  REMOTE_ENGINE_TIMEOUT: { status: 504, message: (d) => `Remote transcription server timed out: ${d}` },

  // Models
  MODEL_NOT_FOUND: { status: 404, message: (d) => `Model not found: ${d}` },
  MODEL_NOT_INSTALLED: { status: 503, message: (d) => `Model not installed: ${d}` },
  MODEL_INVALID: { status: 503, message: (d) => `Model is missing files or corrupt: ${d}` },
  MODEL_DOWNLOAD_FAILED: { status: 502, message: (d) => `Model download failed: ${d}` },
  MODEL_CHECKSUM_MISMATCH: { status: 502, message: (d) => `Model checksum mismatch: ${d}` },
  MODEL_PULL_INTERRUPTED: { status: 503, message: (d) => `Model pull interrupted: ${d}` },

  // Post-processing
  NO_AI_PROVIDER: { status: 400, message: 'No AI provider is configured.' },
  PROVIDER_NOT_FOUND: { status: 400, message: (d) => `AI provider not found: ${d}` },
  PROVIDER_UNAVAILABLE: { status: 400, message: (d) => `AI provider unavailable: ${d}` },
  PROVIDER_FAILED: { status: 400, message: (d) => `AI provider failed: ${d}` },
  PROVIDER_TIMEOUT: { status: 400, message: (d) => `AI provider timed out: ${d}` },

  // Settings (the config keys a page may change)
  CONFIG_FILE_CONFLICT: { status: 409, message: (d) => `The config file cannot be changed: ${d}` },
  CONFIG_WRITE_FAILED: { status: 500, message: (d) => `Could not write the config file: ${d}` },

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

declare module './dictum-error.ts' {
  interface ErrorCodes extends Codes<typeof catalogue> {}
}

/** `errors.MISSING_AUDIO()`, `errors.AUDIO_FILE_NOT_FOUND('/tmp/x.wav')`… */
export const errors = defineErrors('core', catalogue)
