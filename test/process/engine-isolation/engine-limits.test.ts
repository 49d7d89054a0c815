/**
 * Issue 16 items 12 and 20, through the API: an engine that leaks memory (V8 heap or buffers) is stopped at
 * `speech.memoryLimitMb`, an engine that answers a huge transcript is refused at the result cap; each gets a
 * clear error, the API keeps answering and the next request works. Real app, real HTTP, real engine hosts.
 */
import path from 'node:path'
import t, { type Test } from 'tap'
import { build, FIXTURES } from '../../helpers/build.ts'
import { listen, rawRequest } from '../../helpers/http.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'

const JFK = path.join(audioFixturesDir, 'jfk.wav')

async function greedyApp(t: Test) {
  const app = await build(t, {
    plugins: [path.join(FIXTURES, 'engines/greedy-engine.ts')],
    // A leak the limit misses runs into this timeout (504) instead of the machine's memory.
    speech: { engine: 'greedy', memoryLimitMb: 200, timeoutMs: 20_000 },
    vad: { enabled: false },
  })
  const port = await listen(t, app)
  return (prompt: string) =>
    rawRequest({
      port,
      method: 'POST',
      path: '/v1/transcribe',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: JFK, prompt }),
    }).then(async (response) => ({
      ...response,
      health: (await rawRequest({ port, path: '/v1/health' })).status,
    }))
}

for (const leak of ['leak-heap', 'leak-buffer']) {
  t.test(
    `${leak}: 500 ENGINE_MEMORY_LIMIT naming the engine and the limit; the next request works`,
    async (t) => {
      const transcribe = await greedyApp(t)
      const leaked = await transcribe(leak)
      t.equal(leaked.status, 500)
      t.equal(leaked.json.code, 'ENGINE_MEMORY_LIMIT')
      t.equal(
        leaked.json.error,
        'Speech engine exceeded its memory limit: greedy: the engine process used more than its memory limit of 200 MB (speech.memoryLimitMb); the engine was stopped.',
      )
      t.equal(leaked.health, 200, 'the API keeps answering')
      const next = await transcribe('alive')
      t.equal(next.status, 200)
      t.match(next.json.text, /^alive \d+$/)
    },
  )
}

t.test('a huge transcript: 500 naming the engine and the cap; the next request works', async (t) => {
  const transcribe = await greedyApp(t)
  const huge = await transcribe('huge-text')
  t.equal(huge.status, 500)
  t.equal(huge.json.code, 'ENGINE_FAILED')
  t.equal(
    huge.json.error,
    'Speech engine failed: greedy: the result is larger than the limit of 65536 characters for 11.0 s of audio.',
  )
  t.ok(huge.text.length < 1000, 'the transcript is not in the body')
  t.equal(huge.health, 200, 'the API keeps answering')
  const next = await transcribe('alive')
  t.equal(next.status, 200)
  t.match(next.json.text, /^alive \d+$/)
})
