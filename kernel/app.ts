/**
 * `buildApp(config)`: the Fastify app with its container, guard, error surface and route plugins. It never
 * listens (kernel/server.ts owns the process); tests `inject` into it.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
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
import { dictateRoutes } from '../plugins/dictate/index.ts'
import { dictionaryRoutes } from '../plugins/dictionary/index.ts'
import { enginesRoutes } from '../plugins/engines/index.ts'
import { healthRoutes } from '../plugins/health/index.ts'
import { historyRoutes } from '../plugins/history/index.ts'
import { openaiRoutes } from '../plugins/openai/index.ts'
import { openapi } from '../plugins/openapi/index.ts'
import { postprocessRoutes } from '../plugins/postprocess/index.ts'
import { transcribeRoutes } from '../plugins/transcribe/index.ts'
import { buildContainer, type Cradle, closeContainer, type DictumContainer } from './container.ts'
import { type DiscoveryResult, discoverPlugins } from './discovery.ts'
import { errorBody, errors } from './errors.ts'
import { accessLog } from './http/access-log.ts'
import { clientErrorHandler, errorHandler, frameworkErrors } from './http/error-handler.ts'
import { createGuard } from './http/guard.ts'
import { applyRequestTimeout, TIMEOUT_CHECK_INTERVAL_MS } from './http/request-timeout.ts'
import { RoutesTable } from './http/routes-table.ts'
import { logStream } from './log-destination.ts'
import type { ModelManager } from './models/manager.ts'
import { checkPluginConfig } from './plugin-options.ts'
import type { RunnerFactory } from './registry.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's services (its Awilix container's cradle). */
    dictum: Cradle
    container: DictumContainer
  }
}

export type DictumApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>

export interface BuildOptions {
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
  /** Replace the model manager (tests). */
  models?: ModelManager
}

export async function buildApp(
  config: Readonly<DictumConfig>,
  options: BuildOptions = {},
): Promise<DictumApp> {
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
    // Requests share the app logger instead of a pino child each (which costs ~10% of a small request's
    // time); the few per-request lines (errors) carry `reqId` themselves.
    childLoggerFactory: (logger) => logger,
    // One access-log line per request instead (http/access-log.ts), switchable live.
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<TypeBoxTypeProvider>() as DictumApp

  const container = buildContainer({
    config,
    configFile: options.configFile ?? null,
    logger: app.log,
    discovery,
    ...(options.runnerFactory ? { runnerFactory: options.runnerFactory } : {}),
    ...(options.models ? { models: options.models } : {}),
  })
  app.decorate('container', container)
  app.decorate('dictum', { getter: () => container.cradle })
  app.addHook('onClose', async () => closeContainer(container))
  applyRequestTimeout(app.server, config.api)
  container.cradle.configStore.onChange((next) => applyRequestTimeout(app.server, next.api))

  const routes = new RoutesTable()
  app.addHook('onRoute', (route) => routes.add(route.url, route.method as string | string[]))
  app.addHook('onRequest', createGuard(container.cradle.configStore))
  app.addHook('onResponse', accessLog(container.cradle.configStore))
  app.setErrorHandler(errorHandler)
  app.setNotFoundHandler(async (request, reply) => {
    const allowed = routes.allowed(request.url.split('?')[0] ?? '')
    if (allowed.length === 0) return reply.code(404).send(errorBody(errors.ROUTE_NOT_FOUND()))
    return reply.code(405).header('Allow', allowed.join(', ')).send(errorBody(errors.METHOD_NOT_ALLOWED()))
  })
  // Bodies that are not JSON arrive as raw bytes: audio for /v1/transcribe, UTF-8 text for /v1/postprocess.
  app.removeContentTypeParser('text/plain')
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

  await app.register(openapi)
  await app.register(healthRoutes, { prefix: '/v1' })
  await app.register(dictionaryRoutes, { prefix: '/v1/dictionary' })
  await app.register(historyRoutes, { prefix: '/v1' })
  await app.register(postprocessRoutes, { prefix: '/v1' })
  await app.register(enginesRoutes, { prefix: '/v1' })
  await app.register(transcribeRoutes, { prefix: '/v1' })
  await app.register(dictateRoutes, { prefix: '/v1' })
  await app.register(openaiRoutes, { prefix: '/v1' })
  return app
}

function loggerOption(
  logger: BuildOptions['logger'],
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
