import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { createEngineRunner, type EngineRunnerOptions } from '../../kernel/engine-runner/index.ts'
import { listenError } from '../../server/listener.ts'
import { startServer } from '../../server/server.ts'
import { FIXTURE_ENGINE, FIXTURE_PROVIDER, FIXTURES, tempDir } from '../helpers/build.ts'
import { rawRequest } from '../helpers/http.ts'
import { logCapture, waitFor } from '../helpers/log-capture.ts'

const SECOND_ENGINE = path.join(FIXTURES, 'plugins/second-engine.ts')

function setup(t: Test, extra: Record<string, unknown> = {}) {
  const dir = tempDir(t)
  const file = path.join(dir, 'config.json')
  const base = {
    api: { port: 0 },
    dataDir: path.join(dir, 'data'),
    plugins: [FIXTURE_ENGINE, SECOND_ENGINE, FIXTURE_PROVIDER],
    speech: { engine: 'fixture-echo' },
    ...extra,
  }
  const write = (config: Record<string, unknown>) =>
    writeFileSync(file, JSON.stringify({ ...base, ...config }))
  write({})
  return { file, write }
}

t.test('the server listens, and api.enabled toggles the listener live from a file edit', async (t) => {
  const { file, write } = setup(t)
  const { logger } = logCapture()
  const server = await startServer({ flags: { config: file }, env: {}, logger })
  t.teardown(() => server.close())
  const port = server.listener.address?.port
  t.ok(port, 'listening')
  t.equal((await rawRequest({ port: port!, path: '/v1/health' })).status, 200)

  write({ api: { port: 0, enabled: false } })
  await waitFor(() => server.listener.address === null, 'the listener to close')
  await t.rejects(rawRequest({ port: port!, path: '/v1/health' }), { code: 'ECONNREFUSED' })

  write({ api: { port: 0, enabled: true } })
  await waitFor(() => server.listener.address !== null, 'the listener to open')
  const reopened = server.listener.address!.port
  t.equal((await rawRequest({ port: reopened, path: '/v1/health' })).status, 200)
})

t.test(
  'engine and provider switches apply live; an invalid edit keeps the old config and logs why',
  async (t) => {
    const { file, write } = setup(t)
    const { logger, lines } = logCapture()
    const server = await startServer({ flags: { config: file }, env: {}, logger, watch: false })
    t.teardown(() => server.close())
    const { app } = server
    t.equal(app.dictum.engines.activeId, 'fixture-echo')

    write({ speech: { engine: 'fixture-second' }, ai: { provider: 'fixture-upper' } })
    t.equal(await server.reload(), true)
    t.equal(app.dictum.engines.activeId, 'fixture-second')
    const engine = await app.dictum.engines.acquire()
    engine.release()
    t.equal(engine.displayName, 'Fixture Second')
    const enhanced = await app.inject({ method: 'POST', url: '/v1/postprocess', payload: { text: 'live' } })
    t.equal(enhanced.json().text, 'LIVE', 'provider switched')

    write({ speech: { engine: 'no-such-engine', concurrency: 0 }, ai: { provider: 'fixture-upper' } })
    t.equal(await server.reload(), false)
    t.equal(app.dictum.engines.activeId, 'fixture-second', 'previous config still in force')
    const rejected = lines.find((l) => l.msg === 'config edit rejected; the previous config stays in force')
    t.ok(rejected, 'logged')
    t.match(String(rejected?.error), /speech\.concurrency/)

    writeFileSync(file, '{ not json')
    t.equal(await server.reload(), false)
    t.equal(app.dictum.configStore.current.ai.provider, 'fixture-upper')
  },
)

t.test('engine options edits restart the engine with the new options', async (t) => {
  const { file, write } = setup(t)
  const server = await startServer({ flags: { config: file }, env: {}, logger: false, watch: false })
  t.teardown(() => server.close())
  const first = await server.app.dictum.engines.acquire()
  const samples = new Float32Array(16)
  t.equal((await first.runner.transcribe({ samples, customWords: [] })).text, 'heard 16 samples')
  write({ speech: { engine: 'fixture-echo', engines: { 'fixture-echo': { text: 'new options' } } } })
  await server.reload()
  t.equal(first.runner.state, 'ready', 'the old runner serves the request holding it')
  first.release()
  t.equal(first.runner.state, 'closed', 'and closes once released')
  const second = await server.app.dictum.engines.acquire()
  t.equal((await second.runner.transcribe({ samples, customWords: [] })).text, 'new options')
})

t.test('the engine runner factory given to startServer runs its engines', async (t) => {
  const { file } = setup(t)
  const made: string[] = []
  const runnerFactory = (options: EngineRunnerOptions) => {
    made.push(options.engineId)
    return createEngineRunner(options)
  }
  const server = await startServer({
    flags: { config: file },
    env: {},
    logger: false,
    watch: false,
    runnerFactory,
  })
  t.teardown(() => server.close())
  const engine = await server.app.dictum.engines.acquire()
  t.teardown(() => engine.release())
  const samples = new Float32Array(16)
  t.equal((await engine.runner.transcribe({ samples, customWords: [] })).text, 'heard 16 samples')
  t.same(made, ['fixture-echo'])
})

t.test('close is graceful and safe twice', async (t) => {
  const { file } = setup(t)
  const server = await startServer({ flags: { config: file }, env: {}, logger: false })
  const port = server.listener.address!.port
  await Promise.all([server.close(), server.close()])
  await t.rejects(rawRequest({ port, path: '/v1/health' }), { code: 'ECONNREFUSED' })
})

t.test('a bad config at start is an error listing every problem', async (t) => {
  const { file } = setup(t, { api: { port: 'x', enabled: 3 }, speech: { engine: 'nope' } })
  await t.rejects(startServer({ flags: { config: file }, env: {}, logger: false }), {
    code: 'CONFIG_INVALID',
    message: /(?=[\s\S]*api\.port: Expected integer)(?=[\s\S]*api\.enabled: Expected boolean)/,
  })
})

t.test('binding a non-loopback address without api.token logs a warning', async (t) => {
  const { file } = setup(t, { api: { host: '0.0.0.0', port: 0 } })
  const { logger, lines } = logCapture()
  const server = await startServer({ flags: { config: file }, env: {}, logger, watch: false })
  t.teardown(() => server.close())
  t.ok(
    lines.some((l) => l.level === 40 && /non-loopback address without api\.token/.test(String(l.msg))),
    'warned',
  )
  const { file: withToken } = setup(t, { api: { host: '0.0.0.0', port: 0, token: 'x-token-123' } })
  const quiet = logCapture()
  const second = await startServer({
    flags: { config: withToken },
    env: {},
    logger: quiet.logger,
    watch: false,
  })
  t.teardown(() => second.close())
  t.notOk(
    quiet.lines.some((l) => /non-loopback/.test(String(l.msg))),
    'no warning with a token',
  )
  t.notOk(JSON.stringify(quiet.lines).includes('x-token-123'), 'the token is never logged')
})

t.test('a port already in use is a clear error naming the fix', async (t) => {
  const { file } = setup(t)
  const first = await startServer({ flags: { config: file }, env: {}, logger: false, watch: false })
  t.teardown(() => first.close())
  const port = first.listener.address!.port
  const other = setup(t)
  await t.rejects(
    startServer({ flags: { config: other.file, port: String(port) }, env: {}, logger: false, watch: false }),
    {
      message: `cannot listen on 127.0.0.1:${port}: the port is already in use (another dictum? try GET http://127.0.0.1:${port}/v1/health); choose another with --port, DICTUM_PORT or api.port in the config file.`,
      cause: { code: 'EADDRINUSE' },
    },
  )
  t.equal((await rawRequest({ port, path: '/v1/health' })).status, 200, 'the first server is unharmed')
})

t.test(
  'a privileged port or a missing address is explained too; other listen errors pass as they are',
  async (t) => {
    const failure = (code: string) => Object.assign(new Error(`listen ${code}`), { code })
    const denied = failure('EACCES')
    t.match(listenError(denied, '127.0.0.1', 80), {
      message:
        'cannot listen on 127.0.0.1:80: permission denied (ports below 1024 need privileges); choose another with --port, DICTUM_PORT or api.port in the config file.',
      cause: denied,
    })
    t.equal(
      listenError(failure('EADDRNOTAVAIL'), '::5', 47733).message,
      'cannot listen on [::5]:47733: this machine has no such address; set --host, DICTUM_HOST or api.host to one of its addresses (127.0.0.1 for this machine only).',
    )
    const other = failure('EMFILE')
    t.equal(listenError(other, '127.0.0.1', 47733), other)
  },
)

t.test('one access-log line per request at info, without query or body, switchable live', async (t) => {
  const { file, write } = setup(t, { log: { level: 'info' } })
  const { logger, lines } = logCapture()
  const server = await startServer({ flags: { config: file }, env: {}, logger, watch: false })
  t.teardown(() => server.close())
  const port = server.listener.address?.port as number
  const requests = () => lines.filter((l) => l.msg === 'request')

  await rawRequest({ port, path: '/v1/health?secret=hunter2' })
  await rawRequest({
    port,
    method: 'POST',
    path: '/v1/postprocess',
    headers: { 'content-type': 'application/json', authorization: 'Bearer tok-123' },
    body: JSON.stringify({ text: 'my apiKey is sk-abcdef' }),
  })
  await rawRequest({ port, path: '/v1/nope' })
  await waitFor(() => requests().length === 3, 'three access-log lines')
  const [health, post, missing] = requests()
  t.match(health, { level: 30, method: 'GET', path: '/v1/health', status: 200 })
  t.type(health?.ms, 'number')
  t.match(post, { method: 'POST', path: '/v1/postprocess', status: 400 })
  t.match(missing, { method: 'GET', path: '/v1/nope', status: 404 })
  const text = JSON.stringify(lines)
  for (const secret of ['hunter2', 'tok-123', 'sk-abcdef'])
    t.notOk(text.includes(secret), `${secret} is not logged`)

  write({ log: { level: 'info', requests: false } })
  t.ok(await server.reload())
  await rawRequest({ port, path: '/v1/health' })
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(requests().length, 3, 'log.requests false: no more lines, applied live')
})
