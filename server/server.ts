/**
 * The dictum process: loads the config, builds the app, opens the listener, re-applies config edits while
 * running, and closes everything gracefully on SIGINT/SIGTERM. `buildApp` never listens; this file does.
 */
import {
  type ConfigFlags,
  configFilePath,
  configInvalid,
  draftConfig,
  freezeConfig,
  type LoadOptions,
  resolveConfig,
} from '../config/load.ts'
import type { DictumConfig } from '../config/schema.ts'
import { allProblems, loadCheckedConfig } from '../kernel/config-check.ts'
import { dictumCacheDir } from '../lib/cache-files.ts'
import { WyomingServer } from '../wyoming/server.ts'
import { type BuildOptions, buildApp, type DictumApp } from './app.ts'
import { ConfigSchema } from './config-schema.ts'
import { ConfigWatcher } from './config-watcher.ts'
import { ApiListener } from './listener.ts'

export interface ServerOptions {
  flags?: ConfigFlags
  env?: NodeJS.ProcessEnv
  cwd?: string
  /** Watch the config file and apply edits live (default true). */
  watch?: boolean
  /** Passed to buildApp (tests: `false` or a pino instance). */
  logger?: BuildOptions['logger']
  /** Passed to buildApp (tests: the built-in engines in the test process); default: each engine's isolation. */
  runnerFactory?: BuildOptions['runnerFactory']
}

export interface RunningServer {
  app: DictumApp
  listener: ApiListener
  /** The Wyoming server (config `wyoming.*`; closed unless `wyoming.enabled`). */
  wyoming: WyomingServer
  /** Re-reads the config file and applies it; resolves false (and logs why) when the edit is invalid. */
  reload(): Promise<boolean>
  /** Graceful close; safe to call twice. */
  close(): Promise<void>
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const loadOptions: LoadOptions = { flags: options.flags ?? {}, env: options.env ?? process.env }
  if (options.cwd !== undefined) loadOptions.cwd = options.cwd
  const { loaded, discovery } = await loadCheckedConfig(ConfigSchema, loadOptions)
  const configFile = configFilePath(
    options.flags ?? {},
    options.env ?? process.env,
    options.cwd ?? process.cwd(),
  ).path
  const app = await buildApp(loaded.config, {
    // Where the file is, or is created when settings are changed through the API (PATCH /v1/settings).
    configFile: loaded.file ?? configFile,
    discovery,
    cacheDir: dictumCacheDir(options.env ?? process.env),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    ...(options.runnerFactory ? { runnerFactory: options.runnerFactory } : {}),
  })
  await app.ready()
  const listener = new ApiListener(app.server, app.log)
  const wyoming = new WyomingServer(app)
  const watcher = new ConfigWatcher()
  try {
    await listener.apply(loaded.config.api)
    await wyoming.apply(loaded.config)
  } catch (err) {
    await listener.close()
    await app.close()
    throw err
  }
  announceWebApp(app, listener)
  // What only some routes need is loaded now, in the background (http/warm-up.ts).
  app.warmUp.startAfterFirstAnswer(app.server, app.log)
  // Leftovers of pulls interrupted by a crash (staging folders, old partial downloads), once listening: the
  // first requests need not wait for it, and a pull started meanwhile is never touched (pullingHere).
  const cleanup = app.dictum.models
    .cleanupStale()
    .catch((err: Error) => app.log.warn({ error: err.message }, 'model cleanup failed'))

  let reloading: Promise<boolean> = Promise.resolve(true)
  const reload = () => {
    reloading = reloading.then(() => applyEdit(app, listener, wyoming, loadOptions))
    return reloading
  }
  if (options.watch !== false) {
    watcher.start(configFile, () => void reload())
    app.log.info({ file: configFile }, 'watching the config file for edits')
  }

  let closing: Promise<void> | null = null
  const close = () => {
    closing ??= (async () => {
      watcher.close()
      await reloading.catch(() => {})
      await Promise.all([cleanup, app.warmUp.stop()])
      // The Wyoming connections get the same grace as the HTTP requests, before the live sessions close.
      // Model pulls (minutes long) end at once, so each client gets their last event before its connection goes.
      await Promise.all([
        drainRequests(app, listener),
        wyoming.close(SHUTDOWN_GRACE_MS),
        app.dictum.models.close(),
      ])
      await app.close()
    })()
    return closing
  }
  return { app, listener, wyoming, reload, close }
}

/** Says where the web app is, for the person who started dictum (`dictum serve`). */
function announceWebApp(app: DictumApp, listener: ApiListener): void {
  const address = listener.address
  if (!address || !app.dictum.configStore.current.web.enabled) return
  // A wildcard address is reached on this machine through loopback.
  const host = ['0.0.0.0', '::', '[::]'].includes(address.host) ? '127.0.0.1' : address.host
  const url = `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${address.port}/`
  app.log.info({ url }, `dictum web app: ${url}`)
}

/** Requests in flight when shutdown starts get this long to finish on their own. */
export const SHUTDOWN_GRACE_MS = 5000
/** After the engines are stopped, this long for the failed requests' answers to be written. */
const ANSWER_GRACE_MS = 2000

/**
 * The bounded part of a shutdown: stop accepting and let the requests in flight finish (each socket closes as
 * its last response ends); after SHUTDOWN_GRACE_MS stop the engines (busy engine processes are killed, their
 * requests answer 503 "the engine was closed"), and after ANSWER_GRACE_MS more destroy what is still open (a
 * stalled upload, a slow client). The engines are stopped here, not left to `app.close()`: Fastify's close
 * waits for every connection before it runs the hook that closes them.
 */
async function drainRequests(app: DictumApp, listener: ApiListener): Promise<void> {
  const drained = listener.close()
  if (await settlesWithin(drained, SHUTDOWN_GRACE_MS)) return
  app.log.warn(
    { requests: listener.inFlight, graceMs: SHUTDOWN_GRACE_MS },
    'requests still running at shutdown: stopping the engines',
  )
  await app.dictum.engines.close()
  if (await settlesWithin(drained, ANSWER_GRACE_MS)) return
  listener.closeAllConnections()
  await drained
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  return Promise.race([promise.then(() => true), late]).finally(() => clearTimeout(timer))
}

/**
 * Loads the edited config and applies it, or logs every error (core keys and plugin options in one) and keeps
 * the config in force. A config file at the default location that is gone keeps the config in force too:
 * editors and sync tools delete and recreate files, and falling back to the defaults would drop settings
 * such as `api.token`. (A missing file means the defaults only at start-up.)
 */
async function applyEdit(
  app: DictumApp,
  listener: ApiListener,
  wyoming: WyomingServer,
  loadOptions: LoadOptions,
): Promise<boolean> {
  const store = app.dictum.configStore
  const current = store.current
  let next: Readonly<DictumConfig>
  try {
    const draft = draftConfig(ConfigSchema, loadOptions)
    if (draft.file === null) {
      app.log.warn({}, 'the config file is gone; the config in force stays until it is back')
      return false
    }
    const problems = allProblems(draft, app.dictum.discovery)
    if (problems.length > 0) throw configInvalid(problems)
    next = keepRestartOnly(freezeConfig(draft.value), current, app)
  } catch (err) {
    app.log.error(
      { error: (err as Error).message },
      'config edit rejected; the previous config stays in force',
    )
    return false
  }
  if (JSON.stringify(next) === JSON.stringify(current)) return true
  const failures = await store.update(next)
  for (const failure of failures) app.log.error({ error: failure.message }, 'applying the config edit failed')
  app.log.level = next.log.level
  try {
    await listener.apply(next.api)
  } catch (err) {
    app.log.error({ error: (err as Error).message }, 'could not open the API listener')
  }
  try {
    await wyoming.apply(next)
  } catch (err) {
    app.log.error({ error: (err as Error).message }, 'could not open the Wyoming server')
  }
  app.log.info({}, 'config edit applied')
  return true
}

/** `dataDir` and `plugins` only change with a restart: keep the values in force and say so. */
function keepRestartOnly(next: Readonly<DictumConfig>, current: Readonly<DictumConfig>, app: DictumApp) {
  const changed = (['dataDir', 'plugins'] as const).filter(
    (key) => JSON.stringify(next[key]) !== JSON.stringify(current[key]),
  )
  if (changed.length === 0) return next
  app.log.warn({ keys: changed }, 'these config keys take effect when dictum restarts')
  return resolveConfig(ConfigSchema, {
    ...structuredClone(next),
    dataDir: current.dataDir,
    plugins: [...current.plugins],
  })
}

/** Runs the server until SIGINT/SIGTERM; a second signal exits at once. */
export async function runServer(options: ServerOptions = {}): Promise<void> {
  const server = await startServer(options)
  let signals = 0
  const onSignal = (signal: NodeJS.Signals) => {
    signals++
    if (signals > 1) process.exit(130)
    server.app.log.info({ signal }, 'shutting down')
    server.close().then(
      () => process.exit(0),
      (err) => {
        server.app.log.error({ error: (err as Error).message }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
}
