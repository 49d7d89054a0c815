/**
 * A long file's pieces on several engine slots at once: the same transcript (text, segment times) as on one
 * slot, a dictation arriving meanwhile served before the file's remaining pieces, and a client that goes
 * away stopping every piece in flight. The fixture engine records the order pieces reach it.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import type { InlineEngineRunner } from '../../../kernel/engine-runner/inline-runner.ts'
import { journal, releaseHeld } from '../../fixtures/plugins/record-engine.ts'
import { build, FIXTURES } from '../../helpers/build.ts'
import { listen } from '../../helpers/http.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'

const RECORD_ENGINE = path.join(FIXTURES, 'plugins/record-engine.ts')
const LONG = path.join(audioFixturesDir, 'extra/silero-vad-test-en-60s.wav')
const JFK = path.join(audioFixturesDir, 'jfk.wav')

/** Fixed 12-second pieces (no VAD): the 60 s file is 5 pieces, the 11 s clip one. */
function config(concurrency: number, engineOptions: Record<string, unknown> = {}) {
  return {
    plugins: [RECORD_ENGINE],
    speech: { engine: 'fixture-record', concurrency, engines: { 'fixture-record': engineOptions } },
    vad: { enabled: false, maxSegmentSeconds: 12 },
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await sleep(10)
  if (!condition()) throw new Error(`timed out waiting for ${what}`)
}

const starts = () => journal.filter((e) => e.event === 'start')

// Each test reads the pieces' journal from empty. In its test group this also runs before the other files'
// tests: harmless, the journal is this file's fixture engine's.
t.beforeEach(() => {
  journal.length = 0
})

t.test('several slots: the same text and segment times as one slot, pieces in order', async (t) => {
  // Pieces starting at an even second take longer, so later pieces finish before earlier ones.
  const options = { delayMs: 1, evenDelayMs: 60 }
  const results = []
  for (const concurrency of [1, 3]) {
    const app = await build(t, config(concurrency, options))
    const response = await app.inject({
      method: 'POST',
      url: '/v1/transcribe?verbose=true',
      payload: { path: LONG },
    })
    t.equal(response.statusCode, 200)
    results.push(response.json())
    await app.close()
  }
  const [one, three] = results
  t.equal(one.text, 'piece at 0s piece at 12s piece at 24s piece at 36s piece at 48s', 'in order')
  t.equal(three.text, one.text, 'the same text')
  t.same(three.segments, one.segments, 'the same segments and times')
  t.equal(one.segments[1].start, 12.1, 'segment times are from the start of the file')
  t.equal(three.sampleCount, one.sampleCount)
})

t.test('a dictation arriving while a long file runs starts before its remaining pieces', async (t) => {
  const app = await build(t, config(2, { hold: true }))
  t.teardown(releaseHeld)
  const file = app.inject({ method: 'POST', url: '/v1/transcribe', payload: { path: LONG } })
  // Both slots busy with the file's first pieces, its next ones waiting for a slot.
  await until(() => starts().length === 2, 'two pieces of the file to start')
  const dictation = app.inject({
    method: 'POST',
    url: '/v1/transcribe',
    payload: { path: JFK, prompt: 'dictation' },
  })
  let done = false
  Promise.all([file, dictation]).finally(() => {
    done = true
  })
  // The file's next two pieces and the dictation wait for a slot; then each release lets the next one in.
  const engine = await app.dictum.engines.acquire()
  const runner = engine.runner as InlineEngineRunner
  await until(() => runner.waiting === 3, 'the dictation to wait for a slot')
  engine.release()
  while (!done) {
    releaseHeld()
    await sleep(10)
  }
  t.equal((await file).statusCode, 200)
  t.equal((await dictation).json().rawText, 'piece at 0s')
  const order = starts().map((e) => e.name)
  t.same(order.slice(0, 2), ['at 0', 'at 12'], 'the file had both slots')
  t.equal(order[2], 'dictation', 'the dictation took the first slot freed, ahead of the file')
  t.equal(order.length, 6, 'then the rest of the file')
})

t.test('a client that goes away stops every piece in flight', async (t) => {
  const app = await build(t, config(3, { hold: true }))
  t.teardown(releaseHeld)
  const port = await listen(t, app)
  const controller = new AbortController()
  const request = fetch(`http://127.0.0.1:${port}/v1/transcribe`, {
    method: 'POST',
    headers: { 'content-type': 'audio/wav' },
    body: readFileSync(LONG),
    signal: controller.signal,
  })
  request.catch(() => {})
  await until(() => starts().length === 3, 'three pieces in flight')
  controller.abort()
  await until(() => journal.filter((e) => e.event === 'abort').length === 3, 'the pieces to stop')
  // Let anything that would start late show up.
  await sleep(200)
  t.equal(starts().length, 3, 'no piece started after the client left')
  t.same(
    journal.filter((e) => e.event !== 'start').map((e) => e.event),
    ['abort', 'abort', 'abort'],
    'every piece in flight was stopped, none finished',
  )
})
