/**
 * The config file's JSON Schema for editors: the shipped `config.schema.json` is exactly what the generator
 * makes from the loader's TypeBox schema (so it cannot go stale), a real JSON Schema validator (ajv) accepts
 * the README's example and rejects bad configs as the loader does, `dictum config --schema` prints it, and a
 * config file may carry `"$schema"`.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import { Ajv } from 'ajv'
import t, { type Test } from 'tap'
import { main } from '../../cli/index.ts'
import { configJsonSchema } from '../../config/json-schema.ts'
import { loadConfig } from '../../config/load.ts'
import { ConfigSchema } from '../../server/config-schema.ts'
import { tempDir } from '../helpers/build.ts'
import { repoRoot } from '../helpers/fixtures.ts'

const SHIPPED = path.join(repoRoot, 'config.schema.json')

t.test('config.schema.json is the generated schema (regenerate: dictum config --schema)', async (t) => {
  t.equal(readFileSync(SHIPPED, 'utf8'), `${JSON.stringify(configJsonSchema(ConfigSchema), null, 2)}\n`)
})

t.test('a JSON Schema validator agrees with the loader', async (t) => {
  const validate = new Ajv({ strict: false }).compile(configJsonSchema(ConfigSchema))
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8')
  const example = /Example:\n\n```json\n([\s\S]*?)\n```/.exec(readme)?.[1]
  t.ok(example, "the README's example config")
  t.ok(validate(JSON.parse(example as string)), `README example: ${JSON.stringify(validate.errors)}`)
  t.ok(validate({}), 'an empty file (all defaults)')
  t.ok(validate({ $schema: './config.schema.json', api: { port: 8080 } }), 'with $schema')
  for (const bad of [
    { api: { port: 'eighty' } },
    { nope: true },
    { speech: { concurrency: 0 } },
    { log: { level: 'loud' } },
  ]) {
    t.notOk(validate(bad), `rejects ${JSON.stringify(bad)}`)
    t.throws(() => loadConfigFrom(t, bad), /Invalid configuration/, 'as the loader does')
  }
})

function loadConfigFrom(t: Test, config: unknown) {
  const dir = tempDir(t)
  const file = path.join(dir, 'config.json')
  writeFileSync(file, JSON.stringify(config))
  return loadConfig(ConfigSchema, { flags: { config: file }, env: {}, cwd: dir })
}

t.test('a config file may carry $schema', async (t) => {
  const { config } = loadConfigFrom(t, {
    $schema: 'https://example.invalid/config.schema.json',
    api: { port: 1234 },
  })
  t.equal(config.api.port, 1234)
})

t.test('dictum config --schema prints it', async (t) => {
  const stdout = new PassThrough()
  let out = ''
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  const code = await main(['config', '--schema'], {
    stdout,
    stderr: new PassThrough(),
    isTTY: false,
    env: {},
    cwd: repoRoot,
  })
  t.equal(code, 0)
  t.same(JSON.parse(out), configJsonSchema(ConfigSchema))
})
