/**
 * A plugin carries the range of dictum's plugin API it was written for (`apiRange`, stamped by
 * defineEngine/defineProvider): discovery refuses one whose range does not hold dictum's API version, naming
 * the plugin, its range and dictum's version, when the plugin loads at start.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { PLUGIN_API_VERSION } from '../../kernel/contracts/api-version.ts'
import { discoverPlugins } from '../../kernel/discovery.ts'
import { tempDir } from '../helpers/build.ts'
import { repoRoot } from '../helpers/fixtures.ts'

const SDK = path.join(repoRoot, 'sdk/plugin.ts')

/** A third-party engine plugin file made with the SDK's defineEngine, with these extra fields. */
function enginePlugin(dir: string, id: string, extra = ''): string {
  const file = path.join(dir, `${id}.ts`)
  writeFileSync(
    file,
    `import { defineEngine, Type } from ${JSON.stringify(SDK)}
export default defineEngine({
  id: ${JSON.stringify(id)},
  displayName: 'Range Probe',
  isolation: 'none',
  optionsSchema: Type.Object({}),
  capabilities: () => ({ customWords: false, wordTimestamps: false, segmentTimestamps: false, languages: ['en'], maxAudioSeconds: null }),
  create: () => ({ load: async () => {}, transcribe: async () => ({ text: '', confidence: null }), close: async () => {} }),
  ${extra}
})
`,
  )
  return file
}

t.test('defineEngine stamps the API version of its SDK, and such a plugin loads', async (t) => {
  const file = enginePlugin(tempDir(t), 'range-current')
  const found = await discoverPlugins({ plugins: [file] })
  t.equal(found.engines.get('range-current')?.definition.apiRange, `^${PLUGIN_API_VERSION}`)
})

t.test('the built-in engines and providers carry the current range', async (t) => {
  const found = await discoverPlugins({ plugins: [] })
  for (const { definition } of [...found.engines.values(), ...found.providers.values()]) {
    t.equal(definition.apiRange, `^${PLUGIN_API_VERSION}`, definition.id)
  }
})

t.test(
  "a plugin written for another API is refused, naming it, its range and dictum's version",
  async (t) => {
    const file = enginePlugin(tempDir(t), 'range-future', "apiRange: '^2.0.0',")
    const error = await discoverPlugins({ plugins: [file] }).then(
      () => null,
      (err: unknown) => err as { code: string; message: string },
    )
    t.equal(error?.code, 'PLUGIN_API_MISMATCH')
    t.match(error?.message, 'range-future.ts: range-future')
    t.match(error?.message, 'plugin API ^2.0.0')
    t.match(error?.message, `this dictum's plugin API is ${PLUGIN_API_VERSION}`)
  },
)

t.test('a range that cannot be read is an invalid plugin, not a mismatch', async (t) => {
  const file = enginePlugin(tempDir(t), 'range-typo', "apiRange: 'one point oh',")
  await t.rejects(discoverPlugins({ plugins: [file] }), {
    code: 'PLUGIN_INVALID',
    message: new RegExp(
      `range-typo: apiRange must be a version range such as "\\^${PLUGIN_API_VERSION.replaceAll('.', '\\.')}"`,
    ),
  })
})

t.test('a definition made without defineEngine and without a range is not checked', async (t) => {
  const file = path.join(tempDir(t), 'untagged-range.mjs')
  writeFileSync(
    file,
    `export const engine = { kind: 'engine', id: 'no-range', displayName: 'No Range', isolation: 'none',
  optionsSchema: (await import(${JSON.stringify(SDK)})).Type.Object({}),
  capabilities: () => ({ customWords: false, wordTimestamps: false, segmentTimestamps: false, languages: ['en'], maxAudioSeconds: null }),
  create: () => ({ load: async () => {}, transcribe: async () => ({ text: '', confidence: null }), close: async () => {} }) }
`,
  )
  const found = await discoverPlugins({ plugins: [file] })
  t.ok(found.engines.has('no-range'))
})
