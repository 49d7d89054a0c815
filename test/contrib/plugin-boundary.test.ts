/**
 * Engines and providers are plugins: the repo's lint rule (biome.json, noRestrictedImports) lets them import
 * dictum only through its public entry, sdk/plugin.ts, as a third-party plugin does. The rule is run here on
 * probe files laid out like the repo, so a change to biome.json that stops enforcing it fails a test, and the
 * repo's own engines and providers are checked to import nothing else.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { repoRoot } from '../helpers/fixtures.ts'

const BIOME = path.join(repoRoot, 'node_modules/.bin/biome')

function lint(dir: string): { path: string; category: string }[] {
  let out: string
  try {
    out = execFileSync(BIOME, ['lint', '--reporter=json', '.'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString()
  } catch (err) {
    out = (err as { stdout: Buffer }).stdout.toString()
  }
  const report = JSON.parse(out) as { diagnostics: { category: string; location: { path: string } }[] }
  return report.diagnostics.map((d) => ({ path: d.location.path, category: d.category }))
}

t.test(
  'an engine or provider importing the kernel fails the lint; through sdk/plugin.ts it passes',
  async (t) => {
    const dir = t.testdir()
    copyFileSync(path.join(repoRoot, 'biome.json'), path.join(dir, 'biome.json'))
    const probe = (file: string, from: string) => {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
      writeFileSync(path.join(dir, file), `import { errors } from '${from}'\n\nexport const e = errors\n`)
    }
    probe('engines/probe/kernel.ts', '../../kernel/errors.ts')
    probe('engines/probe/audio.ts', '../../audio/wav-encode.ts')
    probe('engines/probe/lib.ts', '../../lib/timeout.ts')
    probe('engines/probe/provider.ts', '../../providers/common/http.ts')
    probe('providers/probe/kernel.ts', '../../kernel/errors.ts')
    probe('providers/probe/engine.ts', '../../engines/remote/client.ts')
    probe('engines/probe/public.ts', '../../sdk/plugin.ts')
    probe('engines/probe/own.ts', './native.ts')
    probe('providers/probe/common.ts', '../common/http.ts')
    probe('plugins/probe/kernel.ts', '../../kernel/errors.ts')
    const flagged = lint(dir)
      .filter((d) => d.category === 'lint/style/noRestrictedImports')
      .map((d) => d.path.replace(/\\/g, '/'))
      .sort()
    t.same(flagged, [
      'engines/probe/audio.ts',
      'engines/probe/kernel.ts',
      'engines/probe/lib.ts',
      'engines/probe/provider.ts',
      'providers/probe/engine.ts',
      'providers/probe/kernel.ts',
    ])
  },
)

t.test("the repo's engines and providers import dictum only through sdk/plugin.ts", async (t) => {
  const offending: string[] = []
  for (const top of ['engines', 'providers']) {
    for (const entry of readdirSync(path.join(repoRoot, top), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue
      const file = path.join(entry.parentPath, entry.name)
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
        const target = path.relative(repoRoot, path.resolve(path.dirname(file), spec!))
        if (!target.startsWith(`${top}/`) && target !== 'sdk/plugin.ts')
          offending.push(`${path.relative(repoRoot, file)} -> ${target}`)
      }
    }
  }
  t.same(offending, [])
})
