/**
 * Config problems come in one round: core keys and the plugins' options together (service, `dictum config`,
 * every command); a config folder created after start is watched once it appears; a config file at the
 * default location that is deleted while the service runs keeps the config in force (it used to drop
 * `api.token` for the defaults).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { loadCheckedConfig } from '../../kernel/config-check.ts'
import { ConfigSchema } from '../../server/config-schema.ts'
import { startServer } from '../../server/server.ts'
import { runCli } from '../cli/run-cli.ts'
import { tempDir } from '../helpers/build.ts'
import { rawRequest } from '../helpers/http.ts'

const BAD = {
  api: { port: 'eighty' },
  speech: { engine: 'pocketsphinx', engines: { pocketsphinx: { frameDownsample: 9 } } },
  ai: { provider: 'rules', providers: { rules: { nonsense: true } } },
}

t.test('every invalid key, core and plugin options, in one error', async (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, 'config.json')
  writeFileSync(file, JSON.stringify(BAD))
  const error = await loadCheckedConfig(ConfigSchema, { flags: { config: file }, env: {}, cwd: dir }).then(
    () => null,
    (err: Error) => err,
  )
  t.ok(error, 'rejected')
  t.match(error?.message, /api\.port/, 'the core key')
  t.match(error?.message, /speech\.engines\.pocketsphinx\.frameDownsample/, "the engine's option")
  t.match(error?.message, /ai\.providers\.rules/, "the provider's option")

  await t.rejects(
    startServer({ flags: { config: file }, env: {}, logger: false, watch: false }),
    /api\.port[\s\S]*frameDownsample/,
    'the service reports them together',
  )
  const cli = await runCli(['config', '--config', file])
  t.equal(cli.code, 1)
  t.match(cli.stderr, /api\.port[\s\S]*frameDownsample[\s\S]*ai\.providers\.rules/, '`dictum config` too')
})

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`gave up waiting for ${what}`)
}

t.test('a config folder that appears after start is watched; a deleted file keeps the config', async (t) => {
  const home = tempDir(t)
  const env = { XDG_CONFIG_HOME: path.join(home, 'config'), HOME: home }
  const folder = path.join(home, 'config/dictum')
  const server = await startServer({
    flags: { dataDir: path.join(home, 'data'), port: 0 },
    env,
    logger: false,
  })
  t.teardown(() => server.close())
  const port = server.listener.address?.port as number
  t.equal((await rawRequest({ port, path: '/v1/history' })).status, 200, 'no config file: defaults, no token')

  mkdirSync(folder, { recursive: true })
  writeFileSync(path.join(folder, 'config.json'), JSON.stringify({ api: { port, token: 'late-token' } }))
  await waitFor(
    async () => (await rawRequest({ port, path: '/v1/history' })).status === 401,
    'the file in the new folder to apply',
  )
  t.pass('the token from the file created after start applies')

  rmSync(path.join(folder, 'config.json'))
  await new Promise((resolve) => setTimeout(resolve, 600))
  t.ok(await server.reload().then((applied) => !applied), 'the deletion is not applied')
  t.equal((await rawRequest({ port, path: '/v1/history' })).status, 401, 'the token still holds')
  t.equal(
    (await rawRequest({ port, path: '/v1/history', headers: { authorization: 'Bearer late-token' } })).status,
    200,
  )
})
