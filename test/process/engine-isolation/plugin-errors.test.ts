/**
 * An engine plugin's error names the plugin across the process boundary (issue 12 item 4): an engine plugin in
 * its own host process throws a FixtureEngineError; the HTTP error names the engine and the operation, and
 * the error in the API process keeps the thrown one (name, message, stack from the host) as its cause, for
 * `transcribe` and for `load`. The host process is the subject, so this runs in the process tier.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import type { DictumError } from '../../../errors/catalogue.ts'
import { startServer } from '../../../server/server.ts'
import { FIXTURES, tempDir } from '../../helpers/build.ts'
import { rawRequest } from '../../helpers/http.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'

const THROWING_ENGINE = path.join(FIXTURES, 'plugins/throwing-engine.ts')
const JFK = path.join(audioFixturesDir, 'jfk.wav')

async function serve(t: Test, failIn: 'load' | 'transcribe') {
  const dir = tempDir(t)
  const file = path.join(dir, 'config.json')
  writeFileSync(
    file,
    JSON.stringify({
      api: { port: 0 },
      dataDir: path.join(dir, 'data'),
      plugins: [THROWING_ENGINE],
      vad: { enabled: false },
      speech: { engine: 'fixture-throws', engines: { 'fixture-throws': { failIn } } },
    }),
  )
  const server = await startServer({ flags: { config: file }, env: {}, logger: false, watch: false })
  t.teardown(() => server.close())
  return server
}

async function transcribeOverHttp(port: number) {
  const res = await rawRequest({
    port,
    method: 'POST',
    path: '/v1/transcribe',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path: JFK }),
  })
  return { status: res.status, body: res.json }
}

/** The error as the API process holds it: the runner's rejection, before the HTTP layer. */
async function parentSideError(server: Awaited<ReturnType<typeof serve>>): Promise<DictumError> {
  const error = await (async () => {
    const engine = await server.app.dictum.engines.acquire()
    try {
      await engine.runner.transcribe({ samples: new Float32Array(1600), customWords: [] })
    } finally {
      engine.release()
    }
  })().catch((e: unknown) => e)
  return error as DictumError
}

t.test(
  "an engine's error in transcribe names it and the operation; its cause crosses from the host",
  async (t) => {
    const server = await serve(t, 'transcribe')
    const port = server.listener.address!.port
    const res = await transcribeOverHttp(port)
    t.equal(res.status, 500)
    t.equal(res.body.code, 'ENGINE_FAILED')
    t.match(
      res.body.error,
      /^Speech engine failed: fixture-throws: transcribe: boom in transcribe \(pid \d+\)\.$/,
      'the message names the engine id and the operation',
    )
    const hostPid = Number(/pid (\d+)/.exec(res.body.error)?.[1])
    t.not(hostPid, process.pid, 'thrown in another process')

    const error = await parentSideError(server)
    t.equal(error.code, 'ENGINE_FAILED')
    const cause = error.cause as Error
    t.ok(cause instanceof Error, 'the error in the API process has a cause')
    t.equal(cause.name, 'FixtureEngineError', "the cause keeps the thrown error's name")
    t.match(cause.message, /^boom in transcribe \(pid \d+\)$/, 'and its message, as the engine wrote it')
    t.match(cause.stack, /throwing-engine\.ts/, 'and its stack, pointing into the plugin')
  },
)

t.test("an engine's error in load names it and the operation; its cause crosses from the host", async (t) => {
  const server = await serve(t, 'load')
  const res = await transcribeOverHttp(server.listener.address!.port)
  t.equal(res.status, 503)
  t.equal(res.body.code, 'ENGINE_LOAD_FAILED')
  t.match(res.body.error, /^Speech engine failed to load: fixture-throws: boom in load \(pid \d+\)\.$/)

  const error = await (async () => {
    const engine = await server.app.dictum.engines.acquire()
    engine.release()
  })().catch((e: unknown) => e as DictumError)
  t.equal(error?.code, 'ENGINE_LOAD_FAILED')
  const cause = error?.cause as Error
  t.equal(cause?.name, 'FixtureEngineError')
  t.match(cause?.message, /^boom in load \(pid \d+\)$/)
  t.match(cause?.stack, /throwing-engine\.ts/)
})
