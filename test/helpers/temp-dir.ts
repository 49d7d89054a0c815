/** A fresh temp folder for a test, removed on teardown (without the app modules test/helpers/build.ts loads). */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'

/**
 * A fresh temp folder, removed on teardown. Unlike the root test's `t.testdir()`, whose folder is named for
 * the test process, two files in one group (test/helpers/groups.ts) never get the same folder.
 */
export function tempDir(t: Test, prefix = 'dictum-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}
