/**
 * The config's sections, as the errors catalogue test checks the codes: every section a folder declares (in
 * its config.ts) is composed into the schema the loader validates with (server/config-schema.ts), owned by
 * the folder that declares it, and no key is claimed by two folders.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Type } from '@sinclair/typebox'
import t from 'tap'
import { type ConfigSection, composeConfigSchema, configSection } from '../../config/schema.ts'
import { CONFIG_SECTIONS, ConfigSchema } from '../../server/config-schema.ts'
import { repoRoot } from '../helpers/fixtures.ts'

/** The product's source files (the folders the package build compiles). */
function sourceFiles(): string[] {
  const build = JSON.parse(readFileSync(path.join(repoRoot, 'tsconfig.build.json'), 'utf8'))
  return (build.include as string[]).flatMap((folder) =>
    readdirSync(path.join(repoRoot, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.split(path.sep).includes('node_modules'))
      .map((file) => path.join(folder, file)),
  )
}

function isSection(value: unknown): value is ConfigSection {
  const v = value as Partial<ConfigSection> | null
  return typeof v?.owner === 'string' && typeof v.key === 'string' && typeof v.schema === 'object'
}

t.test('every section a folder declares is composed, owned by that folder', async (t) => {
  const declaring = sourceFiles().filter((file) =>
    readFileSync(path.join(repoRoot, file), 'utf8').includes('configSection('),
  )
  const found: ConfigSection[] = []
  for (const file of declaring) {
    t.ok(
      path.basename(file) === 'config.ts' || file === path.join('config', 'schema.ts'),
      `${file}: a section is declared in its folder's config.ts`,
    )
    const module = (await import(pathToFileURL(path.join(repoRoot, file)).href)) as Record<string, unknown>
    for (const section of Object.values(module).filter(isSection)) {
      found.push(section)
      t.equal(section.owner, path.dirname(file), `${section.key}: owned by ${path.dirname(file)}`)
      t.ok(CONFIG_SECTIONS.includes(section as never), `${section.key} (${file}) is in CONFIG_SECTIONS`)
    }
  }
  t.ok(declaring.length > 10, 'the features declare their sections in their own folders')
  t.same(
    CONFIG_SECTIONS.filter((section) => !found.includes(section)).map((s) => s.key),
    [],
    'every composed section comes from a config.ts (no section built elsewhere)',
  )
})

t.test('no key is claimed twice, and a second claim names both owners', async (t) => {
  const keys = CONFIG_SECTIONS.map((section) => section.key)
  t.equal(new Set(keys).size, keys.length, 'keys are unique')
  const intruder = configSection('intruder', 'history', Type.Object({}))
  t.throws(() => composeConfigSchema([...CONFIG_SECTIONS, intruder]), {
    message: 'config key history is declared by history and by intruder',
  })
})

t.test('the schema is the sections, in the order of the list', async (t) => {
  t.same(Object.keys(ConfigSchema.properties), keysOf(CONFIG_SECTIONS))
  for (const section of CONFIG_SECTIONS) {
    t.equal(ConfigSchema.properties[section.key as never], section.schema, section.key)
  }
  t.same(
    ConfigSchema.required,
    keysOf(CONFIG_SECTIONS).filter((key) => key !== '$schema'),
  )
  t.equal(ConfigSchema.additionalProperties, false, 'an unknown top-level key is an error')
})

function keysOf(sections: readonly ConfigSection[]): string[] {
  return sections.map((section) => section.key)
}
