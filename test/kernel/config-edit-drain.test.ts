/**
 * A config edit never fails the work in flight (issue 16 item 13): a real server on a temp config file, a
 * slow engine plugin in its own process (1.5 s per transcription), real HTTP. Edits of the engine's options,
 * `speech.concurrency` and `speech.timeoutMs` while transcriptions run: those finish with 200 and the text of
 * the options they started with, the next request uses the new config, a timeout edit restarts nothing.
 * Likewise an AI provider's options edit while a post-processing request waits on the vendor.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { type RunningServer, startServer } from '../../server/server.ts'
import { FIXTURES, tempDir } from '../helpers/build.ts'
import { rawRequest } from '../helpers/http.ts'
import { logCapture, waitFor } from '../helpers/log-capture.ts'
import { fakeModel, lastUserMessage } from '../helpers/vendor-servers/mock-server.ts'
import { ollamaReply, startOllamaServer } from '../helpers/vendor-servers/ollama.ts'
import { audioFixturesDir } from '../helpers/wav.ts'

const SLOW_ENGINE = path.join(FIXTURES, 'plugins/slow-engine.ts')
const JFK = path.join(audioFixturesDir, 'jfk.wav')

async function serve(t: Test, config: Record<string, unknown>) {
  const dir = tempDir(t)
  const file = path.join(dir, 'config.json')
  const base = {
    api: { port: 0 },
    dataDir: path.join(dir, 'data'),
    plugins: [SLOW_ENGINE],
    vad: { enabled: false },
  }
  const write = (next: Record<string, unknown>) => writeFileSync(file, JSON.stringify({ ...base, ...next }))
  write(config)
  const { logger, lines } = logCapture()
  // The edits are applied with reload(), what the file watcher calls, so each lands at a known moment.
  const server = await startServer({ flags: { config: file }, env: {}, logger, watch: false })
  t.teardown(() => server.close())
  const port = server.listener.address!.port
  return { server, port, write, lines }
}

function transcribe(port: number) {
  return rawRequest({
    port,
    method: 'POST',
    path: '/v1/transcribe',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path: JFK }),
  })
}

/** Resolves once the engine has started its `count`th transcription (the fixture logs each start). */
function started(lines: Array<Record<string, unknown>>, count: number) {
  return waitFor(
    () => lines.filter((l) => l.msg === 'fixture-slow: transcribing').length >= count,
    `transcription ${count} to start`,
  )
}

async function reload(t: Test, server: RunningServer) {
  t.equal(await server.reload(), true, 'the edit is applied')
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const pidOf = (text: string) => Number(/pid (\d+)/.exec(text)?.[1])

t.test('an engine options edit lets the running and the queued transcription finish', async (t) => {
  const speech = (label: string) => ({
    engine: 'fixture-slow',
    concurrency: 1,
    engines: { 'fixture-slow': { label } },
  })
  const { server, port, write, lines } = await serve(t, { speech: speech('old') })
  // One runs, one waits in the engine's queue (concurrency 1).
  const running = transcribe(port)
  const queued = transcribe(port)
  await started(lines, 1)

  write({ speech: speech('new') })
  await reload(t, server)
  t.match(
    lines.find((l) => /the requests in flight finish first/.test(String(l.msg))),
    { engine: 'fixture-slow', requests: 2 },
    'the old engine drains both',
  )

  const [first, second] = await Promise.all([running, queued])
  t.equal(first.status, 200, first.text)
  t.equal(second.status, 200, second.text)
  t.match(first.json.text, /^old pid \d+ heard 176000 samples$/)
  t.match(second.json.text, /^old pid \d+ heard 176000 samples$/)
  const oldPid = pidOf(first.json.text)
  t.equal(pidOf(second.json.text), oldPid, 'the queued one ran on the old engine process')

  const after = await transcribe(port)
  t.equal(after.status, 200, after.text)
  t.match(after.json.text, /^new pid \d+ /, 'the next request uses the new options')
  t.not(pidOf(after.json.text), oldPid, 'in a new engine process')
  await waitFor(() => !alive(oldPid), 'the drained engine process to stop')
})

t.test('a timeout edit restarts nothing and applies to the next transcription', async (t) => {
  const speech = (extra: Record<string, unknown>) => ({ engine: 'fixture-slow', ...extra })
  const { server, port, write, lines } = await serve(t, { speech: speech({}) })
  const warm = await transcribe(port)
  t.equal(warm.status, 200, warm.text)
  const pid = pidOf(warm.json.text)

  const inFlight = transcribe(port)
  await started(lines, 2)
  write({ speech: speech({ timeoutMs: 120_000, loadTimeoutMs: 60_000 }) })
  await reload(t, server)
  const done = await inFlight
  t.equal(done.status, 200, done.text)
  t.equal(pidOf(done.json.text), pid, 'finished on its engine process')
  const next = await transcribe(port)
  t.equal(next.status, 200, next.text)
  t.equal(pidOf(next.json.text), pid, 'the engine was not restarted')
  t.notOk(
    lines.some((l) => /engine options changed/.test(String(l.msg))),
    'no engine replaced for a timeout edit',
  )

  // A timeout shorter than the engine's 1.5 s: the next transcription is stopped by it.
  write({ speech: speech({ timeoutMs: 500 }) })
  await reload(t, server)
  const stopped = await transcribe(port)
  t.equal(stopped.status, 504, stopped.text)
  t.match(stopped.json, { code: 'ENGINE_TIMEOUT', error: /no result after 500 ms/ })
})

t.test('a concurrency edit lets the transcription in flight finish', async (t) => {
  const speech = (concurrency: number) => ({ engine: 'fixture-slow', concurrency })
  const { server, port, write, lines } = await serve(t, { speech: speech(1) })
  const inFlight = transcribe(port)
  await started(lines, 1)
  write({ speech: speech(2) })
  await reload(t, server)
  const done = await inFlight
  t.equal(done.status, 200, done.text)
  t.match(done.json.text, /^default pid \d+ heard 176000 samples$/)

  // The new runner serves two at once: both start before either ends.
  const pair = Promise.all([transcribe(port), transcribe(port)])
  await started(lines, 3)
  const [a, b] = await pair
  t.equal(a.status, 200, a.text)
  t.equal(b.status, 200, b.text)
  t.not(pidOf(a.json.text), pidOf(b.json.text), 'two engine processes')
  t.not(pidOf(a.json.text), pidOf(done.json.text), 'not the drained one')
})

t.test('an AI provider options edit lets the post-processing in flight finish', async (t) => {
  const ollama = await startOllamaServer(t, { models: ['llama3.2', 'qwen3'] })
  // The first request is held by the vendor until the second (sent with the edited options) arrives.
  let secondArrived: () => void = () => {}
  const held = new Promise<void>((resolve) => {
    secondArrived = resolve
  })
  ollama.override((request) => {
    const body = request.body as { model: string }
    const reply = { json: ollamaReply(fakeModel(lastUserMessage(body)), body.model) }
    if (ollama.requests.length === 1) return { ...reply, holdUntil: held }
    secondArrived()
    return reply
  })
  const ai = (model: string) => ({
    provider: 'ollama',
    providers: { ollama: { baseUrl: ollama.url, model } },
  })
  const { server, port, write } = await serve(t, { speech: { engine: 'fixture-slow' }, ai: ai('llama3.2') })
  const postprocess = (text: string) =>
    rawRequest({
      port,
      method: 'POST',
      path: '/v1/postprocess',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    })

  const first = postprocess('first words')
  await waitFor(() => ollama.requests.length === 1, 'the vendor to get the first request')
  write({ speech: { engine: 'fixture-slow' }, ai: ai('qwen3') })
  await reload(t, server)
  const second = await postprocess('second words')
  t.equal(second.status, 200, second.text)
  t.match(second.json, { text: 'SECOND WORDS', provider: 'ollama', model: 'qwen3' })
  const held1 = await first
  t.equal(held1.status, 200, held1.text)
  t.match(held1.json, { text: 'FIRST WORDS', provider: 'ollama', model: 'llama3.2' })
})
