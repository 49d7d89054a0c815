import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { discoverPlugins, resolvePluginSpecifier } from '../../kernel/discovery.ts'
import { buildApp } from '../../server/app.ts'
import { build, FIXTURES, injectJson, tempDir, testConfig } from '../helpers/build.ts'

const plugin = (name: string) => path.join(FIXTURES, 'plugins', name)

t.test('a working third-party engine shows up in /v1/engines with status and capabilities', async (t) => {
  const app = await build(t, { speech: { engines: { 'fixture-echo': { label: 'mine' } } } })
  const res = await injectJson(app, 'GET', '/v1/engines')
  t.equal(res.status, 200)
  t.equal(res.body.active, 'fixture-echo')
  const echo = res.body.items.find((e: { id: string }) => e.id === 'fixture-echo')
  t.match(echo, {
    id: 'fixture-echo',
    displayName: 'Fixture Echo (mine)',
    status: 'discovered',
    reason: null,
    active: true,
    builtIn: false,
    capabilities: { customWords: false, languages: ['en'], maxAudioSeconds: null },
  })
  const acquired = await app.dictum.engines.acquire()
  t.equal(acquired.displayName, 'Fixture Echo (mine)')
  const after = await injectJson(app, 'GET', '/v1/engines')
  t.equal(
    after.body.items.find((e: { id: string }) => e.id === 'fixture-echo').status,
    'ready',
    'loaded engines are ready',
  )
})

t.test('a broken plugin is a clear boot error naming it', async (t) => {
  await t.rejects(buildApp(testConfig(t, { plugins: [plugin('broken-engine.ts')] }), { logger: false }), {
    code: 'PLUGIN_INVALID',
    message:
      /broken-engine\.ts: Broken Engine: id must be lower-case.*optionsSchema must be a TypeBox schema.*create must be a function/,
  })
  await t.rejects(buildApp(testConfig(t, { plugins: [plugin('throws-on-import.ts')] }), { logger: false }), {
    code: 'PLUGIN_LOAD_FAILED',
    message: /throws-on-import\.ts: this plugin cannot start: missing native library/,
  })
  await t.rejects(
    buildApp(testConfig(t, { plugins: ['dictum-plugin-that-does-not-exist'] }), { logger: false }),
    { code: 'PLUGIN_LOAD_FAILED', message: /dictum-plugin-that-does-not-exist/ },
  )
})

t.test(
  'plugins load side by side, but the error reported is the first failing plugin of the list',
  async (t) => {
    const dir = tempDir(t)
    // The first in the list fails last (its import waits), the second fails at once: an error taken in the
    // order the imports end would name the second.
    const slow = path.join(dir, 'slow-failure.mjs')
    writeFileSync(slow, "await new Promise((r) => setTimeout(r, 300))\nthrow new Error('slow failure')\n")
    const fast = path.join(dir, 'fast-failure.mjs')
    writeFileSync(fast, "throw new Error('fast failure')\n")
    await t.rejects(discoverPlugins({ plugins: [slow, fast] }), {
      code: 'PLUGIN_LOAD_FAILED',
      message: /slow-failure\.mjs: slow failure/,
    })
    // A plugin that loads but is invalid, listed before one that fails to load: the invalid one is reported.
    const empty = path.join(dir, 'empty-first.mjs')
    writeFileSync(empty, 'export const unrelated = 1\n')
    await t.rejects(discoverPlugins({ plugins: [empty, fast] }), {
      code: 'PLUGIN_INVALID',
      message: /empty-first\.mjs: exports no definition/,
    })
  },
)

t.test('a module exporting nothing usable, or a duplicate id, is rejected', async (t) => {
  const dir = tempDir(t)
  const empty = path.join(dir, 'empty.mjs')
  writeFileSync(empty, 'export const unrelated = 1\n')
  await t.rejects(discoverPlugins({ plugins: [empty] }), {
    code: 'PLUGIN_INVALID',
    message: /exports no definition/,
  })
  await t.rejects(discoverPlugins({ plugins: [plugin('good-engine.ts'), plugin('good-engine.ts')] }), {
    code: 'PLUGIN_DUPLICATE',
    message: /"fixture-echo" is defined by/,
  })
  const untagged = path.join(dir, 'untagged.mjs')
  writeFileSync(untagged, "export default { id: 'x', displayName: 'X' }\n")
  await t.rejects(discoverPlugins({ plugins: [untagged] }), {
    code: 'PLUGIN_INVALID',
    message: /kind must be "engine" or "provider"/,
  })
  const badDictionary = path.join(dir, 'bad-dictionary.ts')
  const sdk = path.resolve(import.meta.dirname, '../../sdk/plugin.ts')
  writeFileSync(
    badDictionary,
    `import { Type } from ${JSON.stringify(sdk)}
export default { kind: 'engine', id: 'bad-dictionary', displayName: 'Bad', optionsSchema: Type.Object({}),
  capabilities: () => ({}), create: () => ({}), pronunciationDictionary: '/usr/share/dict.dict' }
`,
  )
  await t.rejects(discoverPlugins({ plugins: [badDictionary] }), {
    code: 'PLUGIN_INVALID',
    message: /bad-dictionary: pronunciationDictionary must be a function/,
  })
})

t.test(
  'config naming an unknown engine or provider, or invalid plugin options, fails at boot listing all',
  async (t) => {
    await t.rejects(
      buildApp(
        testConfig(t, {
          speech: { engine: 'nope', engines: { 'fixture-echo': { label: 5 } } },
          ai: { provider: 'missing' },
        }),
        { logger: false },
      ),
      {
        code: 'CONFIG_INVALID',
        message:
          /speech\.engine: no engine "nope"[\s\S]*ai\.provider: no provider "missing"[\s\S]*speech\.engines\.fixture-echo\.label: Expected string/,
      },
    )
  },
)

t.test('providers are listed by the registry with the active one', async (t) => {
  const app = await build(t, { ai: { provider: 'fixture-upper' } })
  const list = app.dictum.providers.list()
  t.match(
    list.find((p) => p.id === 'fixture-upper'),
    { active: true, builtIn: false, status: 'discovered' },
  )
})

t.test('a plugin named by its folder is the file its package exports (Node imports no folder)', async (t) => {
  const dir = tempDir(t)
  const folder = (name: string, manifest: object | null) => {
    mkdirSync(path.join(dir, name))
    if (manifest) writeFileSync(path.join(dir, name, 'package.json'), JSON.stringify(manifest))
    return path.join(dir, name)
  }
  const exported = folder('exported', { type: 'module', exports: './engine.js' })
  t.equal(resolvePluginSpecifier(exported, dir), path.join(exported, 'engine.js'))
  const conditional = folder('conditional', { exports: { '.': { types: './x.d.ts', import: './esm.js' } } })
  t.equal(resolvePluginSpecifier(conditional, dir), path.join(conditional, 'esm.js'))
  const main = folder('main', { main: 'lib/main.js' })
  t.equal(resolvePluginSpecifier(main, dir), path.join(main, 'lib/main.js'))
  const bare = folder('bare', null)
  t.equal(resolvePluginSpecifier(bare, dir), path.join(bare, 'index.js'))
  const file = path.join(exported, 'engine.js')
  t.equal(resolvePluginSpecifier(file, dir), file, 'a file stays itself')
})
