/**
 * dictum as a user runs it (startServer: config, guard, routes, SQLite on disk), with 20 custom words stored,
 * on a temp data dir. Engine: the fixture plugin, so the kernel benchmark does not depend on native engines.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startServer } from '../../server/server.ts'
import { BENCH_CUSTOM_WORDS } from '../lib/custom-words.ts'

const dir = mkdtempSync(path.join(tmpdir(), 'dictum-bench-'))
const file = path.join(dir, 'config.json')
const fixture = path.resolve(import.meta.dirname, '../../test/fixtures/plugins/good-engine.ts')
const extra = process.env.DICTUM_BENCH_CONFIG ? JSON.parse(process.env.DICTUM_BENCH_CONFIG) : {}
writeFileSync(
  file,
  JSON.stringify({
    api: { port: 0 },
    dataDir: path.join(dir, 'data'),
    plugins: [fixture],
    speech: { engine: 'fixture-echo' },
    log: { level: 'warn' },
    ...extra,
  }),
)
const server = await startServer({ flags: { config: file }, env: {}, watch: false })
await server.app.dictum.dictionary.writeCustomWords({ entries: BENCH_CUSTOM_WORDS })
process.stdout.write(`${JSON.stringify({ port: server.listener.address!.port })}\n`)
process.on('SIGTERM', () =>
  server.close().then(() => {
    rmSync(dir, { recursive: true, force: true })
    process.exit(0)
  }),
)
