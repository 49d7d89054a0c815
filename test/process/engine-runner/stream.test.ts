/**
 * Live utterances (RunnerStream) on both runners, with the fixture streaming engine: in this process
 * (isolation 'none') and in an engine host (isolation 'process'). Process-only faults: stream-hosts.test.ts.
 */
import t from 'tap'
import type { DictumError } from '../../../errors/catalogue.ts'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import { expectedText } from '../../fixtures/plugins/streaming-engine.ts'
import {
  audio,
  failureOf,
  MS_PER_WORD,
  partialsOf,
  streamingRunner,
} from '../../kernel/engine-runner/stream-helpers.ts'

const noWords = { customWords: [] }

for (const isolation of ['none', 'process'] as const) {
  t.test(`${isolation}: partials arrive in order and grow; finish gives the final result`, async (t) => {
    const runner = createEngineRunner(streamingRunner(isolation))
    t.teardown(() => runner.close())
    const stream = await runner.openStream(noWords)
    const partials = partialsOf(stream)
    const chunks: Float32Array[] = []
    // 50 ms chunks: loud, loud, silent, loud ... so some chunks add a word and some do not.
    for (let i = 0; i < 12; i++) chunks.push(audio(50, i % 3 !== 2))
    const reused = new Float32Array(800)
    for (const chunk of chunks) {
      // The caller reuses its array at once: the runner must have taken a copy.
      reused.set(chunk)
      stream.write(reused)
      reused.fill(0)
    }
    const result = await stream.finish()

    const all = new Float32Array(chunks.length * 800)
    for (const [i, chunk] of chunks.entries()) all.set(chunk, i * 800)
    const expected = expectedText(all, MS_PER_WORD)
    t.equal(expected, 'alpha bravo charlie delta', 'the fixture hears 8 loud chunks as 4 words')
    t.equal(result.text, expected, 'the final text is what the whole audio gives')
    t.same(partials, ['alpha', 'alpha bravo', 'alpha bravo charlie', 'alpha bravo charlie delta'])
    t.equal(result.words?.length, 4)
    t.same(
      result.words?.map((w) => [w.start, w.end]),
      [
        [0, 0.1],
        [0.1, 0.25],
        [0.25, 0.4],
        [0.4, 0.55],
      ],
      'word timings count from the utterance start, silence included',
    )
    t.equal(await failureOf(stream), 'pending', 'failed never rejects for a stream that finished')
    t.equal(await stream.finish(), result, 'a second finish gets the same result')
    stream.cancel()
    stream.cancel()
  })

  t.test(`${isolation}: custom words reach the stream; two streams at once are independent`, async (t) => {
    const runner = createEngineRunner(streamingRunner(isolation))
    t.teardown(() => runner.close())
    const [a, b] = await Promise.all([
      runner.openStream({ customWords: [{ text: 'Zebra', weight: null, aliases: [] }] }),
      runner.openStream(noWords),
    ])
    const [pa, pb] = [partialsOf(a), partialsOf(b)]
    for (let i = 0; i < 3; i++) {
      a.write(audio(100))
      b.write(audio(100))
      b.write(audio(100))
    }
    const [ra, rb] = await Promise.all([a.finish(), b.finish()])
    t.equal(ra.text, 'Zebra alpha bravo')
    t.equal(rb.text, 'alpha bravo charlie delta echo foxtrot')
    t.same(pa, ['Zebra', 'Zebra alpha', 'Zebra alpha bravo'])
    t.equal(pb.length, 6)
  })

  t.test(
    `${isolation}: cancel drops the utterance; finish after it rejects; cancel twice is safe`,
    async (t) => {
      const runner = createEngineRunner(streamingRunner(isolation, { acceptDelayMs: 20 }))
      t.teardown(() => runner.close())
      const stream = await runner.openStream(noWords)
      for (let i = 0; i < 5; i++) stream.write(audio(100))
      const pending = stream.finish()
      stream.cancel()
      stream.cancel()
      const error = (await pending.catch((e) => e)) as Error
      t.equal(error.name, 'AbortError', 'a pending finish rejects with the abort')
      t.equal(((await stream.finish().catch((e) => e)) as Error).name, 'AbortError')
      stream.write(audio(100))
      t.equal(await failureOf(stream, 50), 'pending', 'cancel is no failure')

      const next = await runner.openStream(noWords)
      const cancelled = await runner.openStream(noWords)
      cancelled.write(audio(100))
      cancelled.cancel()
      next.write(audio(100))
      t.equal((await next.finish()).text, 'alpha', 'the engine goes on with the next stream')
    },
  )

  t.test(`${isolation}: a throw in accept fails the stream with ENGINE_FAILED`, async (t) => {
    const runner = createEngineRunner(streamingRunner(isolation, { throwAfterChunks: 2 }))
    t.teardown(() => runner.close())
    const stream = await runner.openStream(noWords)
    const partials = partialsOf(stream)
    for (let i = 0; i < 4; i++) stream.write(audio(100))
    const error = (await stream.failed.catch((e) => e)) as DictumError
    t.equal(error.code, 'ENGINE_FAILED')
    t.match(
      error.message,
      /^Speech engine failed: fixture-streaming\S*: accept: fixture accept failed after 2 chunks\.$/,
    )
    t.equal((error.cause as Error).message, 'fixture accept failed after 2 chunks')
    t.same(partials, ['alpha', 'alpha bravo'], 'the chunks before the throw were decoded')
    t.equal(await stream.finish().catch((e) => e), error, 'finish rejects with the failure')
    const next = await runner.openStream(noWords)
    next.write(audio(100))
    t.equal((await next.finish()).text, 'alpha', 'the engine still serves new streams')
  })

  t.test(`${isolation}: a finish slower than speech.timeoutMs fails with ENGINE_TIMEOUT`, async (t) => {
    const runner = createEngineRunner(
      streamingRunner(isolation, { finishDelayMs: 1500 }, { requestTimeoutMs: 300 }),
    )
    t.teardown(() => runner.close())
    const stream = await runner.openStream(noWords)
    stream.write(audio(100))
    const error = (await stream.finish().catch((e) => e)) as DictumError
    t.equal(error.code, 'ENGINE_TIMEOUT')
    t.match(error.message, /no result after 300 ms/)
  })

  t.test(`${isolation}: an engine without the streaming capability is refused`, async (t) => {
    const runner = createEngineRunner(streamingRunner(isolation, { streaming: false }))
    t.teardown(() => runner.close())
    const error = (await runner.openStream(noWords).catch((e) => e)) as DictumError
    t.equal(error.code, 'ENGINE_STREAMING_UNSUPPORTED')
    t.equal(error.statusCode, 501)
    t.match(error.message, /^Speech engine does not stream: fixture-streaming/)
    t.equal((await runner.transcribe({ samples: audio(200), customWords: [] })).text, 'alpha bravo')
  })

  t.test(`${isolation}: close() ends the open streams with the closed error`, async (t) => {
    const runner = createEngineRunner(streamingRunner(isolation))
    const [a, b] = await Promise.all([runner.openStream(noWords), runner.openStream(noWords)])
    a.write(audio(100))
    const finishing = b.finish().catch((e) => e)
    await runner.close()
    const failure = (await a.failed.catch((e) => e)) as DictumError
    t.equal(failure.code, 'ENGINE_UNAVAILABLE')
    t.match(failure.message, /the engine was closed/)
    t.equal(((await finishing) as DictumError).code, 'ENGINE_UNAVAILABLE', 'a pending finish too')
    t.equal(((await runner.openStream(noWords).catch((e) => e)) as DictumError).code, 'ENGINE_UNAVAILABLE')
  })
}
