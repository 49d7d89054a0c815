/**
 * Another process holding SQLite's write lock on a data dir's database (test/fixtures/hold-database-lock.ts),
 * as a second program on the same files would: `BEGIN <mode>` and a write, kept until `release()` (or the
 * test's end).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { DATABASE_FILE } from '../../storage/database.ts'

const HOLDER = fileURLToPath(new URL('../fixtures/hold-database-lock.ts', import.meta.url))

export async function holdDatabaseLock(
  t: Test,
  dataDir: string,
  mode: 'IMMEDIATE' | 'EXCLUSIVE',
): Promise<{ release: () => Promise<void> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', HOLDER, path.join(dataDir, DATABASE_FILE), mode],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  const exited = once(child, 'exit')
  const release = async () => {
    child.stdin?.end()
    await exited
  }
  t.teardown(release)
  let output = ''
  for await (const chunk of child.stdout!) {
    output += chunk
    if (output.includes('locked\n')) break
  }
  if (!output.includes('locked\n')) throw new Error('the lock holder exited before taking the lock')
  return { release }
}
