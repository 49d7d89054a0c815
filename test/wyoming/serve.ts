/**
 * The service as `dictum serve` runs it (`startServer`), with the Wyoming server on a free port and a data
 * folder of its own; the fixture engines by default, `config` overriding any top-level key. pocketsphinx runs
 * in the test process, as in the apps of tests (helpers/build.ts `inlineBuiltInEngines`): these tests are
 * about the Wyoming server, not engine isolation. In engine hosts, which run ten nice levels below the
 * service, a loaded CI run (two busy loops on both cores) gave its stream host so little CPU that the real
 * speech test waited over 60 s for an event.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Test } from 'tap'
import { startServer } from '../../server/server.ts'
import { FIXTURE_ENGINE, FIXTURES, inlineBuiltInEngines, tempDir } from '../helpers/build.ts'
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
  const server = await startServer({
    flags: { config: file },
    env: {},
    logger,
    watch: false,
    runnerFactory: inlineBuiltInEngines,
  })
  t.teardown(() => server.close())
  return { server, lines, port: server.wyoming.address?.port ?? 0 }
}
