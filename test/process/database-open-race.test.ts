/**
 * Several processes opening one fresh data dir at the same instant (two CLI commands started together used to
 * race on the migration). The processes are the subject, so this runs in the process tier.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { TABLES } from '../../server/app.ts'
import { openDatabase } from '../../storage/database.ts'
import { BOOKKEEPING_VERSION } from '../../storage/migrations.ts'

const OPENER = fileURLToPath(new URL('../fixtures/open-database.ts', import.meta.url))

function tempDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-db-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const tables = (db: ReturnType<typeof openDatabase>): string[] =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string
    }[]
  ).map((row) => row.name)

/**
 * A child process with dictum's storage loaded (test/fixtures/open-database.ts): `open(dataDir)` has it open
 * the database there and resolves with its answer line (the schema version, or `error <message>`).
 */
async function startOpener(t: Test) {
  const child = spawn(process.execPath, ['--import', 'tsx', OPENER], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  t.teardown(() => {
    child.stdin.end()
    child.kill()
  })
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const nextLine = async () => {
    const line = await lines.next()
    if (line.done) throw new Error(`the opener ended: ${stderr}`)
    return line.value
  }
  const ready = await nextLine()
  if (ready !== 'ready') throw new Error(`the opener said ${ready}: ${stderr}`)
  return {
    send: (dataDir: string) => child.stdin.write(`open ${dataDir}\n`),
    answer: nextLine,
  }
}

t.test(
  'processes that open one fresh data dir at the same instant all succeed, migrating it once',
  async (t) => {
    // Two CLI commands started together on a new data dir used to race: both saw version 0 and the second
    // failed with "table replacement_rules already exists". Six processes, started once (loading tsx takes
    // a few hundred ms each), all ready before the first round; each round they open a new data dir at once.
    const openers = await Promise.all(Array.from({ length: 6 }, () => startOpener(t)))
    for (let round = 0; round < 3; round++) {
      const dataDir = tempDir(t)
      for (const opener of openers) opener.send(dataDir)
      const results = await Promise.all(openers.map((opener) => opener.answer()))
      for (const [i, result] of results.entries()) {
        t.equal(result, String(BOOKKEEPING_VERSION), `round ${round}, process ${i}`)
      }
      const db = openDatabase({ dataDir, features: TABLES })
      t.ok(tables(db).includes('history'), 'schema complete')
      db.close()
    }
  },
)
