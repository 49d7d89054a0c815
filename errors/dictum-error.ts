/**
 * dictum's error class and the tables of codes it is made from. The core's codes are errors/catalogue.ts; a
 * feature declares its own in its folder (`dictionary/errors.ts`: `defineErrors('dictionary', {...})`), as
 * fastify's plugins declare theirs, and names the table in its `Feature.errors`. Every code is registered
 * here once, when its module loads (a code declared twice fails then, naming both owners), so that an error
 * read back by code (from another dictum process, an engine host, the service the CLI talks to) keeps its
 * status; the catalogue test composes the server's features and checks every code against docs/errors.md.
 */

export interface CatalogueEntry {
  status: number
  /** A fixed message, or a function of a detail string. */
  message: string | ((detail: string) => string)
  /** Sent as `Retry-After` (seconds): the condition is expected to pass on its own. */
  retryAfterSeconds?: number
}

/**
 * Every code, added by each table's module through declaration merging (errors/catalogue.ts for the core;
 * `declare module '../errors/dictum-error.ts' { interface ErrorCodes extends Codes<typeof entries> {} }` in a
 * feature's errors.ts), so that {@link ErrorCode} names them all.
 */
// biome-ignore lint/suspicious/noEmptyInterface: each table adds its codes to it by declaration merging
export interface ErrorCodes {}

export type ErrorCode = keyof ErrorCodes & string

/** The code names of a table, as a type to extend {@link ErrorCodes} with. */
export type Codes<T> = { [K in keyof T]: true }

export interface ErrorOptions {
  cause?: unknown
  extra?: Record<string, unknown>
  /** The status of a code this process has no table for (an error read back from a newer service). */
  status?: number
}

/** Every registered code: its owner (`core`, or a feature's name) and its entry. */
const registered = new Map<string, { owner: string; entry: CatalogueEntry }>()

export class DictumError extends Error {
  readonly code: ErrorCode
  readonly statusCode: number
  /** Extra fields sent in the response body beside `error` and `code` (e.g. `fix`). */
  readonly extra: Record<string, unknown> | undefined

  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'DictumError'
    this.code = code
    this.statusCode = registered.get(code)?.entry.status ?? options?.status ?? 500
    this.extra = options?.extra
  }
}

export type ErrorFactory = (detail?: string, options?: Omit<ErrorOptions, 'status'>) => DictumError

/** A table's factories (`errors.MISSING_AUDIO()`, `dictionaryErrors.REPLACEMENT_NOT_FOUND(id)`…). */
export type ErrorFactories<T> = { readonly [K in keyof T & string]: ErrorFactory }

/** What a feature names in `Feature.errors`: its owner and entries, for the catalogue test and the docs. */
export interface ErrorTable {
  owner: string
  entries: Readonly<Record<string, CatalogueEntry>>
}

/** Registers a table of codes under its owner and returns its factories. */
export function defineErrors<T extends Record<string, CatalogueEntry>>(
  owner: string,
  entries: T,
): ErrorFactories<T> & { readonly table: ErrorTable } {
  const factories: Record<string, unknown> = {}
  for (const [code, entry] of Object.entries(entries)) {
    const taken = registered.get(code)
    if (taken) throw new Error(`error code ${code} is declared by ${taken.owner} and by ${owner}`)
    registered.set(code, { owner, entry })
    factories[code] = (detail = '', options?: ErrorOptions) =>
      new DictumError(
        code as ErrorCode,
        typeof entry.message === 'string' ? entry.message : entry.message(detail),
        options,
      )
  }
  factories.table = { owner, entries }
  return factories as ErrorFactories<T> & { readonly table: ErrorTable }
}

/** A registered code (e.g. one read back from another dictum's error body). */
export function isErrorCode(code: string): code is ErrorCode {
  return registered.has(code)
}

/** Every registered code and its owner (the catalogue test finds any that no table of the app owns). */
export function registeredCodes(): { code: string; owner: string }[] {
  return [...registered].map(([code, { owner }]) => ({ code, owner }))
}

/** The entry of a registered code. */
export function entryOf(code: string): CatalogueEntry | undefined {
  return registered.get(code)?.entry
}

export function isDictumError(value: unknown): value is DictumError {
  return value instanceof DictumError
}

/** The JSON body of an error response. */
export function errorBody(error: DictumError): Record<string, unknown> {
  return { error: error.message, code: error.code, ...error.extra }
}
