/**
 * What `dictum serve` loads after it listens (http/warm-up.ts): the tasks run once, in order, in the
 * background; a failing task is logged and the next ones still run; a stopped warm-up starts no more tasks.
 * And the server starts it after its first answer: the OpenAPI document, the WebSocket server, the live
 * sessions' VAD model and turn-detection thread, and the web app's files are then ready before any request
 * asks for them.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { WarmUp } from '../../http/warm-up.ts'
import type { LiveSessions } from '../../live/service.ts'
import { startServer } from '../../server/server.ts'
import { FIXTURE_ENGINE, FIXTURE_PROVIDER, FIXTURES, tempDir } from '../helpers/build.ts'
import { rawRequest } from '../helpers/http.ts'
import { logCapture, waitFor } from '../helpers/log-capture.ts'

t.test('tasks run once each, in order; a failure is logged and the rest still run', async (t) => {
  const { logger, lines } = logCapture()
  const warmUp = new WarmUp()
  const ran: string[] = []
  warmUp.add('first', async () => ran.push('first'))
  warmUp.add('broken', async () => {
    throw new Error('no such module')
  })
  warmUp.add('third', async () => ran.push('third'))
  t.same(ran, [], 'nothing runs before start')
  await Promise.all([warmUp.start(logger), warmUp.start(logger)])
  t.same(ran, ['first', 'third'], 'each task once, in order')
  t.same(warmUp.finished, ['first', 'third'])
  t.ok(
    lines.some((l) => l.task === 'broken' && l.error === 'no such module' && l.level === 40),
    'the failure is logged with the task',
  )
})

t.test('stop: the task in progress ends, no further task starts', async (t) => {
  const { logger } = logCapture()
  const warmUp = new WarmUp()
  const ran: string[] = []
  let started: () => void = () => {}
  const slowStarted = new Promise<void>((resolve) => (started = resolve))
  let release: () => void = () => {}
  warmUp.add('slow', async () => {
    started()
    await new Promise<void>((resolve) => (release = resolve))
    ran.push('slow')
  })
  warmUp.add('after', async () => ran.push('after'))
  const running = warmUp.start(logger)
  await slowStarted
  const stopped = warmUp.stop()
  release()
  await Promise.all([running, stopped])
  t.same(ran, ['slow'], 'the task in progress ended; the next one never started')
})

/** The tasks `dictum serve` warms up once listening. */
const WARM_UP_TASKS = [
  'the OpenAPI document',
  'the WebSocket server',
  'live sessions (the VAD model, the turn-detection thread)',
  'the web app files',
  'the selected engine (speech.preload)',
]

/**
 * `dictum serve` with the fixture plugins and `speech`, listening on a free port, once its first answer has
 * started the warm-up and every task has run; its port and log lines.
 */
async function serveWith(t: Test, speech: Record<string, unknown>) {
  const dir = tempDir(t)
  const file = path.join(dir, 'config.json')
  const plugins = [
    FIXTURE_ENGINE,
    FIXTURE_PROVIDER,
    path.join(FIXTURES, 'plugins/model-engine.ts'),
    path.join(FIXTURES, 'plugins/second-engine.ts'),
  ]
  writeFileSync(file, JSON.stringify({ api: { port: 0 }, dataDir: path.join(dir, 'data'), plugins, speech }))
  const { logger, lines } = logCapture()
  const server = await startServer({ flags: { config: file }, env: {}, logger, watch: false })
  t.teardown(() => server.close())
  const port = server.listener.address!.port
  t.equal((await rawRequest({ port, path: '/v1/health' })).status, 200)
  await waitFor(() => server.app.warmUp.finished.length === WARM_UP_TASKS.length, 'the warm-up')
  return { server, port, lines }
}

t.test('dictum serve warms up once listening', async (t) => {
  // Started by the server after its first answer, without any request for these routes.
  const { server, port } = await serveWith(t, { engine: 'fixture-echo' })
  t.same([...server.app.warmUp.finished].sort(), [...WARM_UP_TASKS].sort(), 'every warm-up task ran once')
  // A first realtime session finds a detector with the default settings ready (its model loaded).
  const { turnDetectors } = server.app.dictum.live as LiveSessions
  t.equal(turnDetectors.created, 1, 'the warm-up made one turn detector')
  t.equal(turnDetectors.idle, 1, 'and keeps it for the first session')
  const doc = await rawRequest({ port, path: '/v1/openapi.json' })
  t.equal(doc.status, 200)
  t.equal(doc.json.openapi, '3.1.0')
})

t.test('the selected engine loads once listening (speech.preload), without a request', async (t) => {
  const { server } = await serveWith(t, { engine: 'fixture-echo' })
  const { engines } = server.app.dictum
  await waitFor(async () => (await engines.status('fixture-echo')).status === 'ready', 'the engine loaded')
  const others = (await engines.list()).filter((e) => e.id !== 'fixture-echo').map((e) => e.status)
  t.ok(others.length > 0 && !others.includes('ready'), `no other engine loaded (${others.join(', ')})`)
})

t.test('speech.preload false: the selected engine loads at its first use', async (t) => {
  const { server } = await serveWith(t, { engine: 'fixture-echo', preload: false })
  const { engines } = server.app.dictum
  await engines.preload()
  t.equal((await engines.status('fixture-echo')).status, 'discovered', 'not loaded after the warm-up')
  const engine = await engines.acquire()
  engine.release()
  t.equal((await engines.status('fixture-echo')).status, 'ready', 'loaded by its first use')
})

t.test('a selected engine that cannot load is logged at start-up; the service answers', async (t) => {
  const { server, port, lines } = await serveWith(t, { engine: 'fixture-model' })
  await server.app.dictum.engines.preload()
  const line = lines.find((l) => l.msg === 'the selected engine could not load')
  t.ok(line, 'logged')
  t.equal(line?.level, 40, 'as a warning')
  t.equal(line?.engine, 'fixture-model')
  t.match(line?.error, /model test-model is not installed.*dictum models pull test-model/)
  const res = await rawRequest({ port, path: '/v1/engines' })
  t.equal(res.status, 200)
  t.equal(res.json.items.find((e: { id: string }) => e.id === 'fixture-model').status, 'unavailable')
})

t.test('another engine selected by a config edit is loaded before its first use', async (t) => {
  const { server } = await serveWith(t, { engine: 'fixture-echo' })
  const { engines, configStore } = server.app.dictum
  await waitFor(async () => (await engines.status('fixture-echo')).status === 'ready', 'the first engine')
  const current = configStore.current
  t.same(
    await configStore.update({ ...current, speech: { ...current.speech, engine: 'fixture-second' } }),
    [],
  )
  await waitFor(async () => (await engines.status('fixture-second')).status === 'ready', 'the second engine')
  t.pass('loaded without a request')
})

t.test('speech.preload false: an engine selected by an edit loads at its first use', async (t) => {
  const { server } = await serveWith(t, { engine: 'fixture-echo', preload: false })
  const { engines, configStore } = server.app.dictum
  const current = configStore.current
  t.same(
    await configStore.update({ ...current, speech: { ...current.speech, engine: 'fixture-second' } }),
    [],
  )
  await engines.preload()
  t.equal((await engines.status('fixture-second')).status, 'discovered', 'not loaded by the edit')
})
