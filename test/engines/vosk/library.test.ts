/**
 * The Vosk binding against the real libvosk (in a child process, so a native crash could not take the test
 * runner down): the library loads, reports its version, and `vosk_model_new` on a missing, empty or corrupt
 * folder returns NULL without killing the process. Also: where the library is looked for.
 */
import { execFile } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { locateLibrary, voskPackage } from '../../../engines/vosk/library.ts'
import { repoRoot } from '../../helpers/wav.ts'

const run = promisify(execFile)
const CHILD = path.join(repoRoot, 'test/engines/vosk/load-in-child.ts')

async function loadInChild(input: Record<string, unknown>) {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(input)], {
    cwd: repoRoot,
  })
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>
}

const located = locateLibrary()
const skip = located.ok ? false : `libvosk not available: ${located.reason}`

t.test('the real libvosk loads and reports its version', { skip }, async (t) => {
  const pkg = voskPackage()!
  const report = await loadInChild({})
  t.equal(report.library, path.join(pkg.dir, 'lib/linux-x86_64/libvosk.so'))
  t.equal(report.version, pkg.version, `version ${pkg.version}`)
  t.match(report.source, /vosk npm package.*no version symbol/, 'says where the figure comes from')
})

t.test(
  'vosk_model_new on a missing, empty or corrupt folder returns NULL; the process survives',
  { skip },
  async (t) => {
    const dir = t.testdir()
    const corrupt = path.join(dir, 'corrupt')
    for (const file of [
      'am/final.mdl',
      'conf/model.conf',
      'conf/mfcc.conf',
      'graph/HCLr.fst',
      'graph/Gr.fst',
    ]) {
      await mkdir(path.dirname(path.join(corrupt, file)), { recursive: true })
      await writeFile(path.join(corrupt, file), 'not a model\n')
    }
    await mkdir(path.join(dir, 'empty'))
    for (const modelDir of [path.join(dir, 'missing'), path.join(dir, 'empty'), corrupt]) {
      const report = await loadInChild({ modelDir })
      t.equal(report.modelLoaded, false, `${path.basename(modelDir)}: NULL, and the child exited normally`)
    }
  },
)

t.test('libraryPath overrides the packaged library; a wrong one is reported, not loaded', async (t) => {
  t.match(locateLibrary('/nonexistent/libvosk.so'), {
    ok: false,
    reason: 'libvosk not found at /nonexistent/libvosk.so',
    fix: 'Fix speech.engines.vosk.libraryPath.',
  })
  if (located.ok) t.same(locateLibrary(located.path), { ok: true, path: located.path })
})
