/**
 * `GET /v1/realtime` (extension): OpenAI's Realtime API for transcription sessions over a WebSocket, on the
 * live dictation service (live/types.ts). Opened as OpenAI's clients open it (`?intent=transcription`, or
 * `?model=…`); the app's guard has run before the upgrade (loopback Host, Origin, token: from the
 * Authorization header or, for browsers, the `openai-insecure-api-key.<token>` subprotocol), so a refused
 * client gets its HTTP 401/403 and never a socket. The `realtime` subprotocol is the one ever answered: a token
 * offered as a subprotocol is never echoed. Sessions over `realtime.maxSessions` are refused before the
 * upgrade with 503 when that is known then, else (a race with another session) by close code 1013.
 */

import { errorBody, errors } from '../../errors/catalogue.ts'
import { onDraining } from '../../http/draining.ts'
import { routePlugin } from '../../http/route-plugin.ts'
import { websocketUpgrades } from '../../http/websocket.ts'
import type { Feature } from '../../kernel/container.ts'
import { liveErrors } from '../../live/errors.ts'
import { chooseModel } from '../../models/model-choice.ts'
import { enginesWithLogprobs } from '../../transcription/logprobs.ts'
import { DEFAULT_SERVER_VAD } from './client-events.ts'
import { RealtimeConnection } from './connection.ts'
import { realtimeErrors } from './error-codes.ts'

/** The one subprotocol answered (OpenAI's browser clients offer it beside the token). */
export const REALTIME_SUBPROTOCOL = 'realtime'

/** OpenAI's conversation models (`gpt-realtime`, `gpt-4o-realtime-preview`…): the selected engine, as whisper-1 is. */
const OPENAI_REALTIME_MODEL = /^gpt-[\w.-]*realtime/

interface RealtimeQuery {
  model?: string
  intent?: string
  app?: string
  /** `true`: a dictation session, whose items go through the editing stage (dictation.commands). */
  dictation?: string
}

const MAX_APP_NAME = 1024

export const realtimeRoutes = routePlugin('realtime', async (app) => {
  const { live, configStore, engines, models } = app.dictum
  const connections = new Set<RealtimeConnection>()
  /** Frames ws refused since start (each closed its connection). */
  let refusedFrames = 0

  const upgrades = websocketUpgrades(app, {
    options: {
      // Only `realtime` is ever chosen; ws would otherwise answer the first protocol offered, which may be
      // the token. A client that offers subprotocols but not `realtime` gets none, and its handshake fails.
      handleProtocols: (offered) => (offered.has(REALTIME_SUBPROTOCOL) ? REALTIME_SUBPROTOCOL : false),
      // One frame per connection per turn of the event loop (issue 28 items 1–2): ws otherwise handles every
      // frame it has read at once, and libuv reads up to 32 × 64 KB from a socket per turn, so a client
      // sending as fast as it can had hundreds of frames parsed before any other request was answered. The
      // frames it has not taken wait in the socket: the client is slowed down (TCP), not buffered for.
      allowSynchronousEvents: false,
    },
    // An edit of realtime.maxFrameBytes applies to the next session.
    maxPayload: () => configStore.current.realtime.maxFrameBytes,
    // A frame ws refuses (bad UTF-8, a reserved opcode, over maxPayload…) ends its connection (ws closes it
    // with 1002/1007/1009): logged at debug with a count, never at error with a stack (one line per frame
    // was a log flood).
    onError: (error, socket, request) => {
      refusedFrames++
      request.log.debug(
        { error: error.message, code: (error as { code?: string }).code, refusedFrames },
        'realtime frame refused: connection closed',
      )
      socket.terminate()
    },
  })
  // What a first session would wait for besides its engine (the VAD model, the turn-detection thread and a
  // detector with the default settings) is loaded once listening (http/warm-up.ts).
  app.warmUp.add('live sessions (the VAD model, the turn-detection thread)', () =>
    live.warmUp(DEFAULT_SERVER_VAD),
  )
  // Shutdown: every session is told before the sockets go.
  app.addHook('preClose', async () => {
    for (const connection of connections) connection.shutdown()
  })
  // The listener stops accepting (shutdown, or it moves): sessions end now, not at their idle timeout.
  onDraining(app.server, () => {
    for (const connection of connections) connection.shutdown()
  })

  // A refused upgrade (guard, limit, bad query) gets its HTTP answer, then its socket is ended
  // (http/websocket.ts). Upgrades to other paths are answered by their routes; a socket that is not
  // upgraded within api.requestTimeoutMs is destroyed (ws clears the timeout when it upgrades).
  app.server.on('upgrade', (_request, socket: import('node:net').Socket) => {
    socket.setTimeout(configStore.current.api.requestTimeoutMs, () => socket.destroy())
  })

  const mapModel = (name: string | undefined) =>
    chooseModel(name !== undefined && OPENAI_REALTIME_MODEL.test(name) ? undefined : name, engines, models)

  app.route<{ Querystring: RealtimeQuery }>({
    method: 'GET',
    url: '/realtime',
    schema: { hide: true },
    preHandler: async (request) => {
      const problem = queryProblem(request.query)
      if (problem) throw errors.INVALID_REQUEST(problem)
      const { maxSessions } = configStore.current.realtime
      if (live.openSessions >= maxSessions) {
        throw liveErrors.TOO_MANY_SESSIONS(`${maxSessions} are open (realtime.maxSessions). Retry later.`)
      }
    },
    handler: upgrades(
      // A plain GET, without the WebSocket upgrade.
      async (_request, reply) =>
        reply
          .code(426)
          .header('Upgrade', 'websocket')
          .send(
            errorBody(
              errors.INVALID_REQUEST('/v1/realtime is a WebSocket: open it with an Upgrade request.'),
            ),
          ),
      (socket, request) => {
        const beta = /realtime=v1/.test(String(request.headers['openai-beta'] ?? ''))
        const connection = new RealtimeConnection(
          socket,
          {
            live,
            chooseModel: mapModel,
            selectedEngine: () => configStore.current.speech.engine,
            limits: () => configStore.current.realtime,
            enginesWithLogprobs: async () => enginesWithLogprobs(await engines.list()),
            log: request.log,
          },
          {
            shape: beta ? 'beta' : 'ga',
            model: request.query.model,
            appName: request.query.app || 'realtime',
            dictation: request.query.dictation === 'true',
          },
        )
        connections.add(connection)
        socket.on('close', () => connections.delete(connection))
      },
    ),
  })
})

/** A string query value, each at most once. */
function queryProblem(query: RealtimeQuery): string | null {
  for (const [key, value] of Object.entries(query)) {
    if (typeof value !== 'string') return `the query parameter ${key} is given more than once.`
  }
  if (query.intent !== undefined && query.intent !== 'transcription') {
    return `intent must be "transcription" (dictum serves transcription sessions).`
  }
  if (query.dictation !== undefined && query.dictation !== 'true' && query.dictation !== 'false') {
    return 'dictation must be "true" or "false".'
  }
  if ((query.app?.length ?? 0) > MAX_APP_NAME) return `app is longer than ${MAX_APP_NAME} characters.`
  return null
}

/** OpenAI's Realtime transcription sessions over a WebSocket, on the live dictation service. */
export const realtimeFeature: Feature = {
  name: 'realtime',
  errors: realtimeErrors.table,
  dependencies: ['live', 'models'],
  routes: { prefix: '/v1', plugin: realtimeRoutes },
}
