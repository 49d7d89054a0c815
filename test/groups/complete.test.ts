/**
 * The grouped tier runs every test file exactly once: each file of the in-process tier is in one group or
 * ALONE, and package.json's `tap.include` names the groups and the ALONE files (test/helpers/groups.ts).
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { repoRoot } from '../helpers/fixtures.ts'
import { ALONE, GROUPS, groupFiles, tierOneFiles } from '../helpers/groups.ts'

t.test('every test file is in one group or runs alone', async (t) => {
  const grouped = Object.keys(GROUPS).flatMap((name) => groupFiles(name))
  t.same(
    [...grouped, ...Object.keys(ALONE)].sort(),
    tierOneFiles(),
    'the groups and ALONE together are the tier, each file once',
  )
  for (const file of Object.keys(ALONE)) t.ok(tierOneFiles().includes(file), `${file} exists`)
})

t.test("package.json's tap.include: the group files and the ALONE files", async (t) => {
  const { tap } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'))
  t.same([...tap.include].sort(), ['test/groups/*.test.ts', ...Object.keys(ALONE)].sort())
  const groupFilesOnDisk = readdirSync(path.join(repoRoot, 'test/groups'))
    .filter((file) => file.endsWith('.test.ts') && file !== 'complete.test.ts')
    .map((file) => file.replace(/\.test\.ts$/u, ''))
    .sort()
  t.same(groupFilesOnDisk, Object.keys(GROUPS).sort(), 'one file in test/groups/ per group')
})

t.test(
  "no grouped file takes the root test's testdir (every file of a group would share its folder)",
  async (t) => {
    const grouped = Object.keys(GROUPS).flatMap((name) => groupFiles(name))
    for (const file of grouped) {
      const source = readFileSync(path.join(repoRoot, file), 'utf8')
      t.notMatch(source, /^\S.*\bt\.testdir\(/mu, `${file}: a root-level t.testdir() (use tempDir)`)
    }
  },
)

t.test('a group of a folder leaves out what a deeper group claims', async (t) => {
  t.ok(groupFiles('routes-openai').every((file) => file.startsWith('test/routes/openai/')))
  t.notOk(groupFiles('routes').some((file) => file.startsWith('test/routes/openai/')))
  t.notOk(groupFiles('audio').includes('test/audio/ffmpeg-formats.test.ts'), 'ALONE files are in no group')
})
