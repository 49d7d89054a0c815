/**
 * The README's test command (`npm test`) runs the in-process tier in groups: each file of test/groups/
 * imports the test files of its folders, one after the other, into one test process. A test process costs
 * ~2.5 s of CPU before its first test (node, tap, tsx and the ~480 modules dictum loads); ~190 of them were
 * most of what 2 cores give in the 6 minutes issue 26 allows. Every file still runs on its own too
 * (`npx tap test/audio/wav-decode.test.ts`), and in a group its tests are the same root tests, in order.
 *
 * ALONE: the files that keep a process of their own (package.json `tap.include` lists them), each for a
 * reason a group would break: a root `t.before` with a root `t.testdir()` (its folder and set-up would be
 * shared with the other files), or assertions about the whole process (its loaded modules, memory, child
 * processes). A root `t.beforeEach` that only resets the file's own fixture (a mock server, a journal) is
 * harmless before the other files' tests, and stays in its group.
 * test/groups/complete.test.ts checks that every file runs exactly once.
 */
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { repoRoot } from './fixtures.ts'

/** Group name (test/groups/NAME.test.ts) → the folders or files of test/ it runs. */
export const GROUPS: Record<string, string[]> = {
  audio: ['audio', 'vad'],
  cli: ['cli'],
  engines: ['engines'],
  'engines-pocketsphinx': ['engines/pocketsphinx', 'engines/remote'],
  // The live pass's tests: a third of pocketsphinx's CPU, in a process of their own beside the others.
  'engines-pocketsphinx-stream': ['engines/pocketsphinx/stream.test.ts'],
  http: ['http', 'server', 'web', 'errors'],
  jobs: ['jobs', 'storage'],
  kernel: ['kernel'],
  live: ['live', 'dictation', 'learning', 'transcription'],
  misc: ['config', 'contrib', 'lib', 'models', 'providers', 'scripts', 'sdk', 'readme.test.ts'],
  'routes-openai': ['routes/openai'],
  'routes-realtime': ['routes/realtime'],
  'routes-transcribe': ['routes/transcribe'],
  routes: ['routes'],
  'wyoming-fuzz': ['wyoming', 'fuzz'],
}

/** Test files (paths from the repo root) that run in a process of their own, and why. */
export const ALONE: Record<string, string> = {
  'test/audio/audio-service.test.ts': 'counts the child processes of the test process',
  'test/audio/ffmpeg-formats.test.ts': 'a root t.before',
  'test/audio/limits-and-cleanup.test.ts': 'a root t.before',
  'test/http/deferred-modules.test.ts': 'asserts which modules the process has loaded',
  'test/http/lazy-schema-compilers.test.ts': 'asserts which modules the process has loaded',
  'test/http/stalled-uploads.test.ts': "measures the process's memory",
  'test/live/memory.test.ts': "measures the process's memory",
  'test/live/turn-thread.test.ts': 'asserts which modules the process has loaded',
  'test/models/plugin-catalog.test.ts': 'sets an environment variable for the whole process',
  'test/vad/vad-segmenter.test.ts': "measures the process's memory",
}

/** Every test file of the in-process tier (paths from the repo root, sorted). */
export function tierOneFiles(): string[] {
  const testDir = path.join(repoRoot, 'test')
  return (readdirSync(testDir, { recursive: true }) as string[])
    .map((file) => path.join('test', file).split(path.sep).join('/'))
    .filter((file) => file.endsWith('.test.ts'))
    .filter((file) => !/^test\/(process|fixtures|helpers|groups)\//u.test(file))
    .sort()
}

/** The files a group runs: under its folders, not ALONE, and not claimed by a group with a deeper folder. */
export function groupFiles(name: string): string[] {
  const claims = Object.entries(GROUPS).flatMap(([group, entries]) =>
    entries.map((entry) => ({ group, prefix: `test/${entry}` })),
  )
  return tierOneFiles().filter((file) => {
    if (file in ALONE) return false
    const owner = claims
      .filter(({ prefix }) => file === prefix || file.startsWith(`${prefix}/`))
      .sort((a, b) => b.prefix.length - a.prefix.length)[0]
    return owner?.group === name
  })
}

/**
 * Imports the group's test files one after the other: their root tests run in this process, in order.
 *
 * A root `t.teardown` (a file's mock server, a temporary folder) turns on tap's "autoend": the root test
 * ends once it has been idle for three timer turns. In a group, the root is idle whenever one file's tests
 * are done before the next file is loaded, so it ended in the middle of the group, and every test of the
 * files after it was refused ("cannot create subtest after parent test ends": 71 of them, with the group
 * still reported ok). The root teardowns are therefore collected while the files load, and handed to tap as
 * one teardown once every file's tests are registered: they still run when the root ends, as before.
 */
export async function runGroup(name: string): Promise<void> {
  if (!(name in GROUPS)) throw new Error(`no test group ${name}`)
  const { default: root } = await import('tap')
  const teardowns: (() => unknown)[] = []
  const teardown = root.teardown
  root.teardown = (fn: () => unknown) => {
    teardowns.push(fn)
  }
  try {
    for (const file of groupFiles(name)) {
      // Tests created after the root ended are refused with a message only: fail the group instead.
      if (root.ended) throw new Error(`tap's root test ended before ${file} was loaded: its tests cannot run`)
      await import(pathToFileURL(path.join(repoRoot, file)).href)
    }
  } finally {
    root.teardown = teardown
  }
  if (teardowns.length > 0) {
    root.teardown(async () => {
      for (const fn of teardowns.reverse()) await fn()
    })
  }
}
