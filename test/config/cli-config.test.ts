/** `dictum config` run as a user would: the effective config, secrets masked; errors listed with exit 1. */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { runCli } from '../cli/run-cli.ts'
import { tempDir } from '../helpers/build.ts'

t.test('prints the effective config with flags applied and secrets masked', async (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, 'config.json')
  writeFileSync(
    file,
    JSON.stringify({
      api: { token: 'tok-secret-1' },
      ai: { providers: { anthropic: { apiKey: 'sk-ant-secret' } } },
    }),
  )
  const { code, stdout } = await runCli(['config', '--config', file, '--port', '5111'], {
    env: { ...process.env, DICTUM_DATA_DIR: dir },
  })
  t.equal(code, 0)
  const printed = JSON.parse(stdout)
  t.equal(printed.file, file)
  t.equal(printed.config.api.port, 5111)
  t.equal(printed.config.api.token, '***')
  t.equal(printed.config.ai.providers.anthropic.apiKey, '***')
  t.equal(printed.config.dataDir, dir)
  t.notMatch(stdout, /tok-secret-1|sk-ant-secret/)
})

t.test('an invalid config: every problem on stderr, exit 1', async (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, 'config.json')
  writeFileSync(file, JSON.stringify({ api: { port: 'x' }, history: { maxEntries: 0 }, typo: 1 }))
  const error = await runCli(['config', '--config', file], { env: process.env })
  t.equal(error.code, 1)
  t.match(error.stderr, /api\.port/)
  t.match(error.stderr, /history\.maxEntries/)
  t.match(error.stderr, /typo: Unexpected property/)
})
