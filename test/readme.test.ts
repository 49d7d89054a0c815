/** The README stays true: every config key is documented, and the two commands it gives exist. */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { TSchema } from '@sinclair/typebox'
import t from 'tap'
import { ConfigSchema } from '../server/config-schema.ts'

const root = path.resolve(import.meta.dirname, '..')
const readme = readFileSync(path.join(root, 'README.md'), 'utf8')

function keyPaths(schema: TSchema, prefix = ''): string[] {
  if (schema.type !== 'object' || !schema.properties) return [prefix]
  return Object.entries(schema.properties as Record<string, TSchema>).flatMap(([key, child]) => {
    const name = prefix ? `${prefix}.${key}` : key
    // Records (speech.engines, ai.providers…) are documented as `<key>.<id>`.
    return child.type === 'object' && child.patternProperties ? [`${name}.<id>`, name] : keyPaths(child, name)
  })
}

t.test('every config key is in the README table', async (t) => {
  for (const key of keyPaths(ConfigSchema)) {
    if (key === 'ai.appPrompts.<id>') continue
    const documented = readme.includes(`| \`${key}\``) || readme.includes(`| \`${key}.<id>\``)
    t.ok(documented, key)
  }
})

t.test('the set-up, run and test commands name real files and scripts', async (t) => {
  t.match(readme, 'bash scripts/setup.sh && npx dictum serve')
  t.match(readme, 'bash scripts/setup.sh && npm test')
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
  t.equal(pkg.bin.dictum, 'bin/dictum.js')
  t.type(pkg.scripts.test, 'string')
  t.type(pkg.scripts.start, 'string')
  t.type(pkg.scripts.bench, 'string')
  const ci = readFileSync(path.join(root, '.ci/run'), 'utf8')
  t.match(ci, 'bash scripts/setup.sh', 'CI sets up the way the README says')
  t.match(ci, 'npm test', 'CI runs the README test command')
  t.type(pkg.scripts['test:process'], 'string')
  t.match(readme, 'npm run test:process', 'the README says how to run the process tier')
  t.match(ci, 'npm run test:process', 'CI runs the process tier too')
})
