/**
 * GET and PATCH /v1/settings (issue 14 item 6) on the real server (`startServer`: config file, watcher,
 * listener) over real HTTP: the engine, the AI provider and history on or off are written to the config file
 * (its other keys, their order and its indentation kept; created at the default location when there is none)
 * and applied live; everything else is refused, and a refused change writes nothing.
 */
import { lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { startServer } from '../../../server/server.ts'
import { FIXTURE_ENGINE, FIXTURE_PROVIDER, FIXTURES, tempDir } from '../../helpers/build.ts'

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any

const SECOND_ENGINE = path.join(FIXTURES, 'plugins/second-engine.ts')

/** A config file as a person writes it: tabs, keys in their order, a key dictum ignores, a provider block. */
function userConfig(dir: string) {
  return {
    $schema: './config.schema.json',
    api: { port: 0 },
    speech: { engine: 'fixture-echo', engines: { 'fixture-echo': { text: 'kept options' } } },
    dataDir: path.join(dir, 'data'),
    plugins: [FIXTURE_ENGINE, SECOND_ENGINE, FIXTURE_PROVIDER],
    ai: { provider: 'none', providers: { 'fixture-upper': {} } },
  }
}

async function serve(t: Test, options: { file?: string; env?: NodeJS.ProcessEnv; token?: string } = {}) {
  const server = await startServer({
    flags: { ...(options.file ? { config: options.file } : {}), port: 0 },
    env: options.env ?? {},
    logger: false,
  })
  t.teardown(() => server.close())
  const port = server.listener.address!.port
  const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`http://127.0.0.1:${port}${url}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    })
    return { status: response.status, body: (await response.json()) as Json }
  }
  return { server, call }
}

t.test(
  'read the settings; change all three: written to the file as the user wrote it, applied live',
  async (t) => {
    const dir = tempDir(t)
    const file = path.join(dir, 'config.json')
    const original = `${JSON.stringify(userConfig(dir), null, '\t')}\n`
    writeFileSync(file, original, { mode: 0o640 })
    const { server, call } = await serve(t, { file })

    const read = await call('GET', '/v1/settings')
    t.equal(read.status, 200)
    t.same(read.body.speech, { engine: 'fixture-echo' })
    t.same(read.body.ai, { provider: 'none' })
    t.same(read.body.history, { enabled: true })
    t.ok(
      read.body.available.engines.includes('fixture-second') &&
        read.body.available.engines.includes('pocketsphinx'),
    )
    t.equal(read.body.available.providers[0], 'none')
    t.ok(read.body.available.providers.includes('fixture-upper'))
    t.same(read.body.configFile, { path: file, exists: true })

    const changed = await call('PATCH', '/v1/settings', {
      speech: { engine: 'fixture-second' },
      ai: { provider: 'fixture-upper' },
      history: { enabled: false },
    })
    t.equal(changed.status, 200)
    t.match(changed.body, {
      speech: { engine: 'fixture-second' },
      ai: { provider: 'fixture-upper' },
      history: { enabled: false },
      created: false,
    })

    // The file: the three keys changed, everything else as it was (order, tabs, final newline, permissions).
    const expected = userConfig(dir)
    expected.speech.engine = 'fixture-second'
    expected.ai.provider = 'fixture-upper'
    const written = readFileSync(file, 'utf8')
    t.equal(written, `${JSON.stringify({ ...expected, history: { enabled: false } }, null, '\t')}\n`)
    t.equal(statSync(file).mode & 0o777, 0o640, 'permissions kept')

    // Live: the engine list, the provider and history answer with the new settings.
    const engines = await call('GET', '/v1/engines')
    t.equal(engines.body.active, 'fixture-second')
    const enhanced = await call('POST', '/v1/postprocess', { text: 'live' })
    t.same(enhanced.body, { text: 'LIVE', provider: 'fixture-upper', model: enhanced.body.model })
    t.equal(server.app.dictum.configStore.current.history.enabled, false)
    t.same((await call('GET', '/v1/settings')).body.history, { enabled: false })

    // The watcher sees the write: its reload finds the same config and keeps it.
    t.equal(await server.reload(), true)
    t.equal(server.app.dictum.engines.activeId, 'fixture-second')
    t.same(server.app.dictum.configStore.current.speech.engines['fixture-echo'], { text: 'kept options' })
  },
)

t.test('refused changes: 400 naming what is wrong, the file untouched', async (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, 'config.json')
  const original = `${JSON.stringify(userConfig(dir), null, 2)}\n`
  writeFileSync(file, original)
  const { call, server } = await serve(t, { file })
  const engines = server.app.dictum.discovery.engines
  const cases: Array<[unknown, string]> = [
    [
      { speech: { engine: 'whisper-turbo' } },
      `Invalid settings payload: speech.engine: no engine "whisper-turbo" (available: ${[...engines.keys()].join(', ')}).`,
    ],
    [
      { ai: { provider: 'openai' } },
      `Invalid settings payload: ai.provider: no provider "openai" (available: none, ${[...server.app.dictum.discovery.providers.keys()].join(', ')}).`,
    ],
    [{ history: { enabled: 'no' } }, 'Invalid settings payload: history.enabled must be true or false.'],
    [{ speech: { engine: 5 } }, 'Invalid settings payload: speech.engine must be a string.'],
    [
      { api: { token: null } },
      'Invalid settings payload: api is not a setting this API changes (speech.engine, ai.provider, history.enabled).',
    ],
    [
      { history: { maxEntries: 1 } },
      'Invalid settings payload: history.maxEntries is not a setting this API changes (speech.engine, ai.provider, history.enabled).',
    ],
    [{ speech: 'fixture-second' }, 'Invalid settings payload: speech must be an object.'],
    [{}, 'Invalid settings payload: expected at least one of speech.engine, ai.provider, history.enabled.'],
    [[], 'Invalid settings payload: the body must be a JSON object.'],
  ]
  for (const [body, error] of cases) {
    const res = await call('PATCH', '/v1/settings', body)
    t.same(res, { status: 400, body: { error, code: 'INVALID_SETTINGS' } }, JSON.stringify(body))
  }
  t.same(await call('PATCH', '/v1/settings', '{"speech":'), {
    status: 400,
    body: { error: 'Invalid JSON settings payload.', code: 'INVALID_SETTINGS_JSON' },
  })
  const proto = await call('PATCH', '/v1/settings', '{"__proto__": {"speech": {"engine": "fixture-second"}}}')
  t.equal(proto.status, 400, '__proto__ is refused')
  t.equal(readFileSync(file, 'utf8'), original, 'nothing written')
  t.equal(server.app.dictum.engines.activeId, 'fixture-echo', 'nothing applied')
})

t.test('a config file with errors is not written into: 409, nothing applied', async (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, 'config.json')
  writeFileSync(file, `${JSON.stringify(userConfig(dir))}\n`)
  const { call, server } = await serve(t, { file })
  // The user breaks the file; the service keeps the config in force (the edit is rejected).
  writeFileSync(file, '{"speech": {"engine": "fixture-echo"},')
  const broken = await call('PATCH', '/v1/settings', { history: { enabled: false } })
  t.equal(broken.status, 409)
  t.equal(broken.body.code, 'CONFIG_FILE_CONFLICT')
  t.match(
    broken.body.error,
    /^The config file cannot be changed: it is not valid JSON \(.+\); fix it first\.$/,
  )
  t.equal(readFileSync(file, 'utf8'), '{"speech": {"engine": "fixture-echo"},')

  writeFileSync(file, JSON.stringify({ ...userConfig(dir), api: { port: 'eighty' } }))
  const invalid = await call('PATCH', '/v1/settings', { history: { enabled: false } })
  t.equal(invalid.status, 409)
  t.match(
    invalid.body.error,
    /^The config file cannot be changed: it has errors; fix them first: api\.port: .+\.$/,
  )
  t.equal(server.app.dictum.configStore.current.history.enabled, true, 'nothing applied')

  // A one-line file stays on one line.
  writeFileSync(file, JSON.stringify(userConfig(dir)))
  t.equal((await call('PATCH', '/v1/settings', { history: { enabled: false } })).status, 200)
  const text = readFileSync(file, 'utf8')
  t.notOk(text.includes('\n'), 'one line, no final newline, as it was')
  t.same(JSON.parse(text).history, { enabled: false })
})

t.test('a config file reached through a symbolic link is written where it lives', async (t) => {
  const dir = tempDir(t)
  const real = path.join(dir, 'dotfiles', 'dictum.json')
  mkdirSync(path.dirname(real))
  writeFileSync(real, JSON.stringify(userConfig(dir), null, 4))
  const link = path.join(dir, 'config.json')
  symlinkSync(real, link)
  const { call } = await serve(t, { file: link })
  t.equal((await call('PATCH', '/v1/settings', { speech: { engine: 'fixture-second' } })).status, 200)
  t.ok(lstatSync(link).isSymbolicLink(), 'the link stays a link')
  const text = readFileSync(real, 'utf8')
  t.equal(JSON.parse(text).speech.engine, 'fixture-second')
  t.match(text, /\n {4}"api"/, 'four spaces, as it was')
})

t.test('without a config file: the change creates one at the default location, and says so', async (t) => {
  const dir = tempDir(t)
  const env = { XDG_CONFIG_HOME: path.join(dir, 'xdg-config'), XDG_DATA_HOME: path.join(dir, 'xdg-data') }
  const { call, server } = await serve(t, { env })
  const file = path.join(dir, 'xdg-config', 'dictum', 'config.json')
  const before = await call('GET', '/v1/settings')
  t.same(before.body.configFile, { path: file, exists: false })
  t.equal(before.body.speech.engine, 'pocketsphinx', 'the defaults')

  const changed = await call('PATCH', '/v1/settings', { history: { enabled: false } })
  t.equal(changed.status, 200)
  t.equal(changed.body.created, true, 'the answer says the file was created')
  t.same(changed.body.configFile, { path: file, exists: true })
  t.equal(
    readFileSync(file, 'utf8'),
    '{\n  "history": {\n    "enabled": false\n  }\n}\n',
    'only the changed key',
  )
  t.equal(statSync(file).mode & 0o777, 0o600, 'readable by its owner only')
  t.equal(server.app.dictum.configStore.current.history.enabled, false, 'applied live')
  t.equal(await server.reload(), true, 'the new file loads as the config in force')
  t.equal(server.app.dictum.configStore.current.history.enabled, false)
  const again = await call('PATCH', '/v1/settings', { history: { enabled: true } })
  t.equal(again.body.created, false)
})

t.test('the token and the Origin guard cover the settings', async (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, 'config.json')
  writeFileSync(file, JSON.stringify({ ...userConfig(dir), api: { port: 0, token: 'settings-token' } }))
  const { call } = await serve(t, { file })
  t.equal((await call('GET', '/v1/settings')).status, 401)
  t.equal((await call('PATCH', '/v1/settings', { history: { enabled: false } })).status, 401)
  const foreign = await call(
    'PATCH',
    '/v1/settings',
    { history: { enabled: false } },
    { authorization: 'Bearer settings-token', origin: 'http://evil.example' },
  )
  t.equal(foreign.status, 403)
  t.equal(JSON.parse(readFileSync(file, 'utf8')).history, undefined, 'nothing written')
})
