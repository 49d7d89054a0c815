/**
 * `createApp(config, { features })`: the Fastify app with its container, guard and error surface, and the
 * features it is given (their services, tables and routes; `Feature`, kernel/container.ts). It never listens
 * (server/server.ts owns the process). dictum's own list of features is server/app.ts's `buildApp`.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { TObject } from '@sinclair/typebox'
import { asClass } from 'awilix/browser'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
  LogController,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify'
import type { DictumConfig } from '../config/schema.ts'
import { errorBody, errors } from '../errors/catalogue.ts'
import {
  buildContainer,
  type Cradle,
  closeContainer,
  type DictumContainer,
  type Feature,
} from '../kernel/container.ts'
import { type DiscoveryResult, discoverPlugins } from '../kernel/discovery.ts'
import { checkPluginConfig } from '../kernel/plugin-options.ts'
import type { RunnerFactory } from '../kernel/registry.ts'
import { logStream } from '../lib/log-destination.ts'
import { accessLog } from './access-log.ts'
import { clientErrorHandler, closeIfBodyUnread, errorHandler, frameworkErrors } from './error-handler.ts'
import { createGuard } from './guard.ts'
import { lazySchemaCompilers } from './lazy-schema-compilers.ts'
import { applyRequestTimeout, TIMEOUT_CHECK_INTERVAL_MS } from './request-timeout.ts'
import { RoutesTable } from './routes-table.ts'
import { UploadSlots } from './upload-slots.ts'
import { WarmUp } from './warm-up.ts'

declare module '../kernel/container.ts' {
  interface Cradle {
    /** The cap on audio uploads received at once: the HTTP shell's own service. */
    uploads: UploadSlots
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's services (its Awilix container's cradle). */
    dictum: Cradle
    container: DictumContainer
    /** What features load after the API listens, so that their first request does not (http/warm-up.ts). */
    warmUp: WarmUp
    /** Where features keep what they can make again, or null (AppOptions.cacheDir). */
    cacheDir: string | null
  }
}

export type DictumApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>

export interface AppOptions {
  /** What the app does: its features, in the order they register. */
  features: readonly Feature[]
  /** The schema the config was validated with (dictum's: server/config-schema.ts), for edits made in the app. */
  configSchema: TObject
  /** The config file the config came from (for reload and `dictum config`). */
  configFile?: string | null
  /** A pino logger, pino options, or false (default: pino at `log.level`). */
  logger?: FastifyServerOptions['logger'] | FastifyBaseLogger
  /** Plugins already discovered (the server reuses them across reloads). */
  discovery?: DiscoveryResult
  /** Directory relative plugin specifiers resolve from. */
  pluginsBaseDir?: string
  /** Replace the engine runner factory (tests). */
  runnerFactory?: RunnerFactory
  /** Replace services after the features registered theirs (tests). */
  services?: Feature['services']
  /**
   * dictum's cache folder (lib/cache-files.ts), where features keep what they can make again (the OpenAPI
   * document); null (the default): nothing is kept. `dictum serve` gives it.
   */
  cacheDir?: string | null
}

export async function createApp(config: Readonly<DictumConfig>, options: AppOptions): Promise<DictumApp> {
  const discovery =
    options.discovery ?? (await discoverPlugins({ plugins: config.plugins, baseDir: options.pluginsBaseDir }))
  const problems = checkPluginConfig(config, discovery)
  if (problems.length > 0) throw errors.CONFIG_INVALID(problems.map((p) => `  - ${p}`).join('\n'))

  const app = Fastify({
    ...loggerOption(options.logger, config),
    bodyLimit: config.api.bodyLimit,
    frameworkErrors,
    clientErrorHandler,
    exposeHeadRoutes: false,
    return503OnClosing: true,
    http: { connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
    forceCloseConnections: 'idle',
    // Each route's schemas compile at its first request, not at boot (http/lazy-schema-compilers.ts).
    schemaController: { compilersFactory: lazySchemaCompilers() as never },
    // Requests share the app logger instead of a pino child each (which costs ~10% of a small request's
    // time); the few per-request lines (errors) carry `reqId` themselves.
    childLoggerFactory: (logger) => logger,
    // One access-log line per request instead (http/access-log.ts), switchable live.
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<TypeBoxTypeProvider>() as DictumApp

  // An Expect header other than 100-continue got Node's bare 417 with no body; the expectation is ignored
  // instead (RFC 9110 allows either), so the request is answered like any other.
  app.server.on('checkExpectation', (request, response) => app.server.emit('request', request, response))

  const container = buildContainer({
    config,
    configSchema: options.configSchema,
    configFile: options.configFile ?? null,
    logger: app.log,
    discovery,
    features: options.features,
    ...(options.runnerFactory ? { runnerFactory: options.runnerFactory } : {}),
    services: { uploads: asClass(UploadSlots).singleton(), ...options.services },
  })
  app.decorate('container', container)
  app.decorate('dictum', { getter: () => container.cradle })
  app.decorate('warmUp', new WarmUp())
  app.decorate('cacheDir', options.cacheDir ?? null)
  app.addHook('onClose', async () => closeContainer(container, options.features))
  applyRequestTimeout(app.server, config.api)
  container.cradle.configStore.onChange((next) => applyRequestTimeout(app.server, next.api))

  const routes = new RoutesTable()
  app.addHook('onRoute', (route) => routes.add(route.url, route.method as string | string[]))
  app.addHook('onRequest', createGuard(container.cradle.configStore))
  app.addHook('onResponse', accessLog(container.cradle.configStore))
  app.addHook('onSend', closeIfBodyUnread)
  app.setErrorHandler(errorHandler)
  app.setNotFoundHandler(async (request, reply) => {
    const allowed = routes.allowed(request.url.split('?')[0] ?? '')
    if (allowed.length === 0) return reply.code(404).send(errorBody(errors.ROUTE_NOT_FOUND()))
    return reply.code(405).header('Allow', allowed.join(', ')).send(errorBody(errors.METHOD_NOT_ALLOWED()))
  })
  // Bodies that are not JSON arrive as raw bytes: audio for /v1/transcribe, UTF-8 text for /v1/postprocess.
  app.removeContentTypeParser('text/plain')
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

  for (const { routes } of options.features) {
    if (routes) await app.register(routes.plugin, { prefix: routes.prefix })
  }
  return app
}

function loggerOption(
  logger: AppOptions['logger'],
  config: Readonly<DictumConfig>,
): Partial<FastifyServerOptions> {
  if (logger === false) return { logger: false }
  if (logger && typeof (logger as FastifyBaseLogger).child === 'function') {
    return { loggerInstance: logger as FastifyBaseLogger }
  }
  const base = typeof logger === 'object' && logger !== null ? logger : {}
  return {
    logger: {
      level: config.log.level,
      redact: { paths: ['req.headers.authorization', '*.apiKey', '*.token'], censor: '***' },
      stream: logStream(),
      ...base,
    },
  }
}
