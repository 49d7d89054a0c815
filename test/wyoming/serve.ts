/**
 * The service as `dictum serve` runs it (`startServer`), with the Wyoming server on a free port and a data
 * folder of its own; the fixture engines by default, `config` overriding any top-level key.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Test } from 'tap'
import { startServer } from '../../server/server.ts'
import { FIXTURE_ENGINE, FIXTURES, tempDir } from '../helpers/build.ts'
import { logCapture } from '../helpers/log-capture.ts'

const STREAMING_ENGINE = path.join(FIXTURES, 'plugins/streaming-engine.ts')

export async function serve(t: Test, config: Record<string, unknown> = {}) {
  const dir = tempDir(t)
  const file = path.join(dir, 'config.json')
  writeFileSync(
    file,
    JSON.stringify({
      api: { port: 0 },
      dataDir: path.join(dir, 'data'),
      plugins: [FIXTURE_ENGINE, STREAMING_ENGINE],
      speech: { engine: 'fixture-echo' },
      wyoming: { enabled: true, port: 0 },
      ...config,
    }),
  )
  const { logger, lines } = logCapture()
  const server = await startServer({ flags: { config: file }, env: {}, logger, watch: false })
  t.teardown(() => server.close())
  return { server, lines, port: server.wyoming.address?.port ?? 0 }
}
