/**
 * The CLI's way to a running dictum service, as `ollama run` talks to `ollama serve`: the service has its
 * engine loaded already, so `dictum transcribe` and `dictum dictate` send their audio there instead of
 * cold-starting an engine in process (about 1.4 s of start-up plus the model load).
 *
 * Which service: `--server URL` (or `DICTUM_SERVER`), else the address the config names (`api.host`,
 * `api.port`), used only when it answers `GET /v1/health` as dictum does. `--local` (or
 * `DICTUM_SERVER=none`) never uses a service. `api.token` from the same config is sent when set.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import type { DictumConfig } from '../config/schema.ts'
import { DictumError, type ErrorCode, isErrorCode } from '../errors/catalogue.ts'
import { isLoopbackHostname } from '../http/guard.ts'
import type { Transcript } from '../transcription/service.ts'
import { CliError } from './cli-error.ts'
import { type CliIO, EXIT } from './io.ts'

/** How long the CLI waits for the configured address to answer before it runs the work itself. */
const PROBE_TIMEOUT_MS = 500
/** A service the user named (`--server`, DICTUM_SERVER) is waited for longer: a busy one is still the one asked for. */
const NAMED_PROBE_TIMEOUT_MS = 5000

/** The options of the commands that can use a running service. */
/** The service did not answer at all (not running, gone): a caller may do the work in this process. */
export class ServiceUnreachable extends CliError {
  constructor(message: string) {
    super(message, EXIT.unavailable)
    this.name = 'ServiceUnreachable'
  }
}

export const SERVER_OPTIONS = {
  server: { type: 'string' },
  local: { type: 'boolean' },
} as const

export const SERVER_HELP = `  --server URL          Use the dictum service at URL (else DICTUM_SERVER, else the configured
                        address when a service answers there)
  --local               Work in this process even when a service is running`

export function serverChoice(values: { server?: unknown; local?: unknown }): ServerChoice {
  return {
    ...(typeof values.server === 'string' ? { server: values.server } : {}),
    ...(values.local === true ? { local: true } : {}),
  }
}

export interface ServerChoice {
  /** `--local`: never use a service. */
  local?: boolean
  /** `--server URL`: this service, which must answer. */
  server?: string
}

/** What `/v1/transcribe?verbose=true` returns: the transcript as the in-process pipeline makes it. */
export type ServerTranscript = Transcript

export interface ReplacementRule {
  id: string
  triggers: string[]
  replacement: string
}

export class ServerClient {
  readonly baseUrl: string
  readonly #token: string | null
  /** The service runs on this machine, so it can read the audio by path (no upload, no size limit). */
  readonly #sameMachine: boolean

  constructor(baseUrl: string, token: string | null) {
    this.baseUrl = baseUrl.replace(/\/+$/, '')
    this.#token = token
    this.#sameMachine = isLoopbackHostname(new URL(this.baseUrl).hostname.replace(/^\[|\]$/g, ''))
  }

  /** The Authorization header for this service's token, for connections other than fetch (WebSockets). */
  authorizationHeaders(): Record<string, string> {
    return this.#token === null ? {} : { authorization: `Bearer ${this.#token}` }
  }

  async transcribe(
    file: string,
    options: { language?: string | undefined; signal: AbortSignal },
  ): Promise<ServerTranscript> {
    const body = await this.#audioBody(file, { language: options.language })
    return (await this.#request(
      'POST',
      '/v1/transcribe?verbose=true',
      body,
      options.signal,
    )) as ServerTranscript
  }

  /**
   * POST /v1/dictate: the history entry, as the in-process pipeline returns it (without `stored`), and why
   * storing it failed (null when it did not).
   */
  async dictate(
    wav: Buffer,
    fields: { appName?: string | undefined; windowTitle?: string | undefined },
    signal: AbortSignal,
  ): Promise<{ entry: { finalText: string }; storeError: string | null }> {
    const body = { audioBase64: wav.toString('base64'), filename: 'dictation.wav', ...definedOnly(fields) }
    const {
      stored: _stored,
      storeError,
      ...entry
    } = (await this.#request('POST', '/v1/dictate', body, signal)) as {
      finalText: string
      stored?: boolean
      storeError?: string | null
    }
    return { entry, storeError: storeError ?? null }
  }

  async replacementRules(signal: AbortSignal): Promise<ReplacementRule[]> {
    const list = (await this.#request('GET', '/v1/dictionary/replacements', undefined, signal)) as {
      items: ReplacementRule[]
    }
    return list.items
  }

  /** A file on this machine goes by path; to another machine it is uploaded (base64 keeps `language`). */
  async #audioBody(
    file: string,
    fields: { language?: string | undefined },
  ): Promise<Record<string, unknown>> {
    if (this.#sameMachine) return { path: file, ...definedOnly(fields) }
    const data = await readFile(file).catch((err: NodeJS.ErrnoException) => {
      throw new CliError(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`)
    })
    return { audioBase64: data.toString('base64'), filename: path.basename(file), ...definedOnly(fields) }
  }

  /** Whether the service runs on this machine (it can read files by path). */
  get sameMachine(): boolean {
    return this.#sameMachine
  }

  /** A JSON request to any route (`dictum jobs`); an error answer throws as the in-process path would. */
  json(method: string, route: string, body?: unknown, signal: AbortSignal = new AbortController().signal) {
    return this.#request(method, route, body, signal)
  }

  /** A multipart form to a route (`dictum jobs submit` to a service on another machine uploads the audio). */
  async form(route: string, form: FormData, signal: AbortSignal): Promise<unknown> {
    return this.#request('POST', route, form, signal)
  }

  async #request(method: string, route: string, body: unknown, signal: AbortSignal): Promise<unknown> {
    const headers: Record<string, string> = {}
    const isForm = body instanceof FormData
    if (body !== undefined && !isForm) headers['content-type'] = 'application/json'
    if (this.#token !== null) headers.authorization = `Bearer ${this.#token}`
    let response: Response
    try {
      response = await fetch(`${this.baseUrl}${route}`, {
        method,
        headers,
        signal,
        ...(body !== undefined ? { body: isForm ? body : JSON.stringify(body) } : {}),
      })
    } catch (err) {
      if (signal.aborted) throw err
      throw new ServiceUnreachable(
        `the dictum service at ${this.baseUrl} did not answer (${causeOf(err)}); run with --local to work without it.`,
      )
    }
    const text = await response.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      throw new CliError(
        `the dictum service at ${this.baseUrl} answered ${response.status} with a body that is not JSON.`,
      )
    }
    if (!response.ok) throw serverError(json, response.status)
    return json
  }
}

/**
 * The service to use, or null to work in process. A `--server` that does not answer is an error (the user
 * asked for it); the configured address that does not answer just means no service is running.
 */
export async function findServer(
  choice: ServerChoice,
  config: Readonly<DictumConfig>,
  io: Pick<CliIO, 'env'>,
): Promise<ServerClient | null> {
  if (choice.local && choice.server !== undefined)
    throw new CliError('--local and --server contradict each other.', EXIT.usage)
  const wanted = choice.server ?? io.env.DICTUM_SERVER
  if (choice.local || wanted === 'none') return null
  const token = config.api.token
  if (wanted !== undefined && wanted !== '') {
    let url: URL
    try {
      url = new URL(wanted)
    } catch {
      throw new CliError(
        `--server must be a URL such as http://127.0.0.1:47733, got "${wanted}".`,
        EXIT.usage,
      )
    }
    const client = new ServerClient(url.origin, token)
    if (!(await answersAsDictum(client.baseUrl, NAMED_PROBE_TIMEOUT_MS)))
      throw new CliError(`no dictum service answers at ${client.baseUrl}.`, EXIT.unavailable)
    return client
  }
  if (!config.api.enabled) return null
  const client = new ServerClient(`http://${connectHost(config.api.host)}:${config.api.port}`, token)
  return (await answersAsDictum(client.baseUrl)) ? client : null
}

/** A wildcard bind address is reached through loopback. */
function connectHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1'
  if (host === '::' || host === '[::]') return '[::1]'
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

async function answersAsDictum(baseUrl: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/v1/health`, { signal: AbortSignal.timeout(timeoutMs) })
    if (!response.ok) return false
    const body = (await response.json()) as { status?: unknown; version?: unknown }
    return body.status === 'ok' && typeof body.version === 'string'
  } catch {
    return false
  }
}

/** The service's error body as the error the in-process path would have thrown (same code, same message). */
function serverError(json: unknown, status: number): Error {
  const body = (json ?? {}) as { error?: unknown; code?: unknown; fix?: unknown }
  const message = typeof body.error === 'string' ? body.error : `the dictum service answered ${status}.`
  // A code of a feature whose module this process never loaded is still dictum's: kept, with its status.
  if (typeof body.code === 'string' && (isErrorCode(body.code) || /^[A-Z][A-Z0-9_]+$/.test(body.code))) {
    const { error: _error, code: _code, ...extra } = body as Record<string, unknown>
    return new DictumError(body.code as ErrorCode, message, {
      status,
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    })
  }
  return new CliError(message, status === 503 ? EXIT.unavailable : EXIT.failure)
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? (err as Error).message
}

function definedOnly(fields: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >
}
