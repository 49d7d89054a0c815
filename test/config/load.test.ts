import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { configFilePath, loadConfig } from '../../config/load.ts'
import { isDictumError } from '../../errors/catalogue.ts'
import { maskSecrets } from '../../lib/secrets.ts'
import { ConfigSchema } from '../../server/config-schema.ts'
import { tempDir } from '../helpers/build.ts'

function writeConfig(dir: string, value: unknown, name = 'config.json'): string {
  const file = path.join(dir, name)
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value))
  return file
}

t.test('defaults apply when there is no config file', async (t) => {
  const home = tempDir(t)
  const { config, file } = loadConfig(ConfigSchema, { env: { HOME: home }, cwd: home })
  t.equal(file, null)
  t.equal(config.api.host, '127.0.0.1')
  t.equal(config.api.port, 47733)
  t.equal(config.api.enabled, true)
  t.equal(config.api.token, null)
  t.equal(config.ai.provider, 'none')
  t.equal(config.history.enabled, true)
  t.equal(config.dataDir, path.join(home, '.local/share/dictum'))
  t.ok(Object.isFrozen(config) && Object.isFrozen(config.api), 'frozen')
})

t.test('file location: --config, else DICTUM_CONFIG, else XDG_CONFIG_HOME', async (t) => {
  t.equal(configFilePath({ config: 'a.json' }, { DICTUM_CONFIG: '/b.json' }, '/cwd').path, '/cwd/a.json')
  t.equal(configFilePath({}, { DICTUM_CONFIG: '/b.json' }, '/cwd').path, '/b.json')
  t.equal(configFilePath({}, { XDG_CONFIG_HOME: '/xdg' }, '/cwd').path, '/xdg/dictum/config.json')
  t.equal(configFilePath({}, { HOME: '/home/u' }, '/cwd').path, '/home/u/.config/dictum/config.json')
  const xdg = tempDir(t)
  mkdirSync(path.join(xdg, 'dictum'))
  writeConfig(path.join(xdg, 'dictum'), { api: { port: 5000 } })
  t.equal(loadConfig(ConfigSchema, { env: { XDG_CONFIG_HOME: xdg }, cwd: xdg }).config.api.port, 5000)
})

t.test('precedence: flags beat env beat file beat defaults', async (t) => {
  const dir = tempDir(t)
  const file = writeConfig(dir, { api: { host: '127.0.0.2', port: 1111 }, dataDir: 'data' })
  const fromFile = loadConfig(ConfigSchema, { flags: { config: file }, env: {}, cwd: '/' }).config
  t.equal(fromFile.api.host, '127.0.0.2')
  t.equal(fromFile.api.port, 1111)
  t.equal(fromFile.dataDir, path.join(dir, 'data'), 'relative dataDir is relative to the config file')
  const env = { DICTUM_HOST: '127.0.0.3', DICTUM_PORT: '2222', DICTUM_DATA_DIR: '/env-data' }
  const fromEnv = loadConfig(ConfigSchema, { flags: { config: file }, env, cwd: '/' }).config
  t.same([fromEnv.api.host, fromEnv.api.port, fromEnv.dataDir], ['127.0.0.3', 2222, '/env-data'])
  const fromFlags = loadConfig(ConfigSchema, {
    flags: { config: file, host: '127.0.0.4', port: '3333', dataDir: 'rel' },
    env,
    cwd: '/work',
  }).config
  t.same([fromFlags.api.host, fromFlags.api.port, fromFlags.dataDir], ['127.0.0.4', 3333, '/work/rel'])
})

t.test('every invalid key is reported at once, with its path', async (t) => {
  const dir = tempDir(t)
  const file = writeConfig(dir, {
    api: { port: 'eighty', enabled: 'yes', extra: 1 },
    speech: { concurrency: 0 },
    history: { maxEntries: -1 },
    unknownTop: true,
  })
  try {
    loadConfig(ConfigSchema, { flags: { config: file }, env: { DICTUM_PORT: 'x1' }, cwd: dir })
    t.fail('should throw')
  } catch (err) {
    t.ok(isDictumError(err))
    const message = (err as Error).message
    t.match(message, /^Invalid configuration:/)
    for (const expected of [
      /api\.port: DICTUM_PORT must be an integer, got "x1"/,
      /api\.enabled: Expected boolean/,
      /api\.extra: Unexpected property/,
      /speech\.concurrency: Expected "auto" or an integer from 1 to 64/,
      /history\.maxEntries/,
      /unknownTop: Unexpected property/,
    ]) {
      t.match(message, expected)
    }
  }
})

t.test('unreadable or malformed files are clear errors; a named missing file too', async (t) => {
  const dir = tempDir(t)
  t.throws(
    () => loadConfig(ConfigSchema, { flags: { config: path.join(dir, 'nope.json') }, env: {}, cwd: dir }),
    /Could not read configuration: .*nope\.json: no such file/,
  )
  const bad = writeConfig(dir, '{"api": ', 'bad.json')
  t.throws(
    () => loadConfig(ConfigSchema, { flags: { config: bad }, env: {}, cwd: dir }),
    /bad\.json: invalid JSON/,
  )
  const arr = writeConfig(dir, '[1]', 'arr.json')
  t.throws(
    () => loadConfig(ConfigSchema, { flags: { config: arr }, env: {}, cwd: dir }),
    /top level must be a JSON object/,
  )
})

t.test('plugin paths are relative to the config file; package names stay names', async (t) => {
  const dir = tempDir(t)
  const file = writeConfig(dir, { plugins: ['./my-engine.js', 'dictum-engine-foo', '/abs/x.js'] })
  t.same(loadConfig(ConfigSchema, { flags: { config: file }, env: {}, cwd: '/' }).config.plugins, [
    path.join(dir, 'my-engine.js'),
    'dictum-engine-foo',
    '/abs/x.js',
  ])
})

t.test('secrets are masked', async (t) => {
  const masked = maskSecrets({
    api: { token: 'abc', port: 1 },
    ai: { providers: { openai: { apiKey: 'sk-1', model: 'm', headers: { Authorization: 'Bearer x' } } } },
  })
  t.same(masked, {
    api: { token: '***', port: 1 },
    ai: { providers: { openai: { apiKey: '***', model: 'm', headers: { Authorization: '***' } } } },
  })
  t.same(maskSecrets({ api: { token: null } }), { api: { token: null } }, 'null stays null')
})
