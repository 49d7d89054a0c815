/**
 * Streams in engine hosts (isolation 'process'): their own hosts beside the transcription hosts, several
 * streams per host up to a cap of hosts, faults that end a host's streams (kill -9, abort, a stuck finish),
 * idle stream hosts stopped. The behaviour both runners share is in stream.test.ts.
 */
import t from 'tap'
import type { DictumError } from '../../../errors/catalogue.ts'
import type { EngineRunnerOptions } from '../../../kernel/engine-runner/index.ts'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import type { ProcessEngineRunner } from '../../../kernel/engine-runner/process-runner.ts'
import { fixtureRunner, pidOf, waitForExit } from '../../kernel/engine-runner/runner-helpers.ts'
import {
  audio,
  partialsOf,
  type StreamingOptions,
  streamingRunner,
} from '../../kernel/engine-runner/stream-helpers.ts'

const noWords = { customWords: [] }

function processRunner(engine: Partial<StreamingOptions> = {}, overrides: Partial<EngineRunnerOptions> = {}) {
  return createEngineRunner(streamingRunner('process', engine, overrides)) as ProcessEngineRunner
}

t.test('streams run on a host of their own, beside the transcription host', async (t) => {
  const runner = processRunner()
  t.teardown(() => runner.close())
  await runner.load()
  const [transcriber] = runner.hostPids
  const stream = await runner.openStream(noWords)
  t.equal(runner.streamHostPids.length, 1)
  t.not(runner.streamHostPids[0], transcriber)
  stream.write(audio(100))
  const result = await stream.finish()
  t.equal(pidOf(result), runner.streamHostPids[0], 'the stream host decoded it')
  t.equal(pidOf(await runner.transcribe({ samples: audio(100), customWords: [] })), transcriber)
})

t.test(
  'several streams share a host up to the cap of stream hosts; the least loaded takes the next',
  async (t) => {
    const runner = processRunner({}, { maxStreamHosts: 2 })
    t.teardown(() => runner.close())
    const streams = await Promise.all([1, 2, 3].map(() => runner.openStream(noWords)))
    t.equal(runner.streamHostPids.length, 2, 'no third host past the cap')
    for (const [i, stream] of streams.entries()) {
      for (let n = 0; n <= i; n++) stream.write(audio(100))
    }
    const results = await Promise.all(streams.map((s) => s.finish()))
    t.same(
      results.map((r) => r.text),
      ['alpha', 'alpha bravo', 'alpha bravo charlie'],
      'each stream decoded only its own audio',
    )
    const pids = results.map(pidOf)
    t.equal(new Set(pids).size, 2, 'the streams were spread over both hosts')

    // All three ended: the least loaded host (now empty) takes the next stream, no new host.
    const next = await runner.openStream(noWords)
    next.write(audio(100))
    t.ok(pids.includes(pidOf(await next.finish())))
    t.equal(runner.streamHostPids.length, 2)
  },
)

t.test('two streams at once on one host give independent results', async (t) => {
  const runner = processRunner({ acceptDelayMs: 5 }, { maxStreamHosts: 1 })
  t.teardown(() => runner.close())
  const a = await runner.openStream({ customWords: [{ text: 'Yak', weight: null, aliases: [] }] })
  const b = await runner.openStream(noWords)
  const [pa, pb] = [partialsOf(a), partialsOf(b)]
  for (let i = 0; i < 4; i++) {
    a.write(audio(50))
    b.write(audio(100))
  }
  const [ra, rb] = await Promise.all([a.finish(), b.finish()])
  t.equal(pidOf(ra), pidOf(rb), 'one host')
  t.equal(ra.text, 'Yak alpha')
  t.equal(rb.text, 'alpha bravo charlie delta')
  t.same(pa, ['Yak', 'Yak alpha'])
  t.same(pb, ['alpha', 'alpha bravo', 'alpha bravo charlie', 'alpha bravo charlie delta'])
})

t.test('kill -9 of the stream host fails its streams with ENGINE_CRASHED; a new stream works', async (t) => {
  const runner = processRunner({}, { maxStreamHosts: 1 })
  t.teardown(() => runner.close())
  await runner.load()
  const a = await runner.openStream(noWords)
  const b = await runner.openStream(noWords)
  const [pid] = runner.streamHostPids
  const first = new Promise((resolve) => a.onPartial(resolve))
  a.write(audio(100))
  await first
  process.kill(pid as number, 'SIGKILL')
  const [ea, eb] = (await Promise.all([a.failed.catch((e) => e), b.failed.catch((e) => e)])) as DictumError[]
  t.equal(ea?.code, 'ENGINE_CRASHED')
  t.match(
    ea?.message,
    /^Speech engine crashed: fixture-streaming: the engine process ended \(signal SIGKILL\)\.$/,
  )
  t.equal(eb, ea, 'every stream on the host got the crash')
  t.equal(((await a.finish().catch((e) => e)) as DictumError).code, 'ENGINE_CRASHED')
  t.equal(runner.lastError?.code, 'ENGINE_CRASHED', 'the crash shows in the engine status')

  const next = await runner.openStream(noWords)
  next.write(audio(200))
  const result = await next.finish()
  t.equal(result.text, 'alpha bravo')
  t.not(pidOf(result), pid, 'a new stream host')
  t.equal(runner.state, 'ready', 'the transcription host was never disturbed')
})

t.test('an engine that aborts in accept ends its host streams with ENGINE_CRASHED', async (t) => {
  const runner = processRunner({ crashAfterChunks: 1 })
  t.teardown(() => runner.close())
  const stream = await runner.openStream(noWords)
  stream.write(audio(100))
  stream.write(audio(100))
  const error = (await stream.failed.catch((e) => e)) as DictumError
  t.equal(error.code, 'ENGINE_CRASHED')
  t.match(error.message, /SIGABRT/)
})

t.test('a stream host over its memory limit ends its streams with ENGINE_MEMORY_LIMIT', async (t) => {
  const runner = processRunner({ leakAfterChunks: 1 }, { memoryLimitMb: 200, maxStreamHosts: 1 })
  t.teardown(() => runner.close())
  const leaking = await runner.openStream(noWords)
  const other = await runner.openStream(noWords)
  leaking.write(audio(100))
  leaking.write(audio(100))
  const error = (await leaking.failed.catch((e) => e)) as DictumError
  t.equal(error.code, 'ENGINE_MEMORY_LIMIT')
  t.match(error.message, /memory limit of 200 MB \(speech\.memoryLimitMb\); the engine was stopped/)
  t.equal(await other.failed.catch((e) => e), error, 'the host is gone, with its other stream')
  t.equal(runner.lastError, error)
})

t.test('a stuck finish fails with ENGINE_TIMEOUT and replaces the host', async (t) => {
  const runner = processRunner({ finishDelayMs: 60_000 }, { requestTimeoutMs: 300, maxStreamHosts: 1 })
  t.teardown(() => runner.close())
  const stuck = await runner.openStream(noWords)
  const other = await runner.openStream(noWords)
  const [pid] = runner.streamHostPids
  stuck.write(audio(100))
  const error = (await stuck.finish().catch((e) => e)) as DictumError
  t.equal(error.code, 'ENGINE_TIMEOUT')
  t.match(error.message, /fixture-streaming: no result after 300 ms; the engine was stopped/)
  t.equal(((await other.failed.catch((e) => e)) as DictumError).code, 'ENGINE_TIMEOUT', 'its host is gone')
  await waitForExit(pid as number)
  const next = await runner.openStream(noWords)
  t.not(runner.streamHostPids[0], pid)
  next.cancel()
})

t.test('a stream host left without streams is stopped after its idle time', async (t) => {
  const runner = processRunner({}, { streamHostIdleMs: 200 })
  t.teardown(() => runner.close())
  const stream = await runner.openStream(noWords)
  const [pid] = runner.streamHostPids
  stream.write(audio(100))
  await stream.finish()
  await waitForExit(pid as number)
  t.same(runner.streamHostPids, [])
  const next = await runner.openStream(noWords)
  next.write(audio(100))
  const result = await next.finish()
  t.equal(result.text, 'alpha')
  t.not(pidOf(result), pid)
})

t.test('while a live session holds the streams, the last stream host outlives its idle time', async (t) => {
  const runner = processRunner({}, { streamHostIdleMs: 100 })
  t.teardown(() => runner.close())
  const release = runner.holdStreams()
  // A stream host starts with the hold, before any stream: the first utterance finds it loading or loaded.
  const [pid] = runner.streamHostPids
  t.equal(runner.streamHostPids.length, 1, 'a stream host starts with the hold')
  const stream = await runner.openStream(noWords)
  t.same(runner.streamHostPids, [pid], 'the first stream runs on it')
  stream.write(audio(100))
  await stream.finish()
  // Ten idle times: a timer can fire late on a busy machine, never early.
  await new Promise((resolve) => setTimeout(resolve, 1000))
  t.same(runner.streamHostPids, [pid], 'kept')
  const next = await runner.openStream(noWords)
  next.write(audio(100))
  t.equal(pidOf(await next.finish()), pid, 'the next utterance runs on it')
  release()
  release()
  await waitForExit(pid as number)
  t.same(runner.streamHostPids, [], 'stopped after its idle time once the hold ended')
})

t.test(
  'a stream host per open live session, up to the bound: two sessions speaking at once get two loaded hosts',
  async (t) => {
    const runner = processRunner({}, { streamHostIdleMs: 100, maxStreamHosts: 2 })
    t.teardown(() => runner.close())
    const releases = [runner.holdStreams(), runner.holdStreams(), runner.holdStreams()]
    t.equal(runner.streamHostPids.length, 2, 'two hosts for three sessions on a bound of two')
    const hosts = [...runner.streamHostPids]
    const [first, second] = await Promise.all([runner.openStream(noWords), runner.openStream(noWords)])
    for (const stream of [first, second]) stream?.write(audio(100))
    const pids = (await Promise.all([first?.finish(), second?.finish()])).map((result) => pidOf(result))
    t.same([...pids].sort(), [...hosts].sort(), 'the two utterances ran on the two hosts started for them')
    // Ten idle times: a timer can fire late on a busy machine, never early.
    await new Promise((resolve) => setTimeout(resolve, 1000))
    t.same(runner.streamHostPids, hosts, 'both kept while the sessions are open')
    releases[0]?.()
    releases[1]?.()
    const stopped = await Promise.race(hosts.map((pid) => waitForExit(pid as number).then(() => pid)))
    t.same(
      runner.streamHostPids,
      hosts.filter((pid) => pid !== stopped),
      'one session left: one host kept',
    )
    releases[2]?.()
    await waitForExit(runner.streamHostPids[0] as number)
    t.same(runner.streamHostPids, [], 'stopped after its idle time once the last hold ended')
  },
)

t.test('a host whose engine has no openStream refuses with ENGINE_STREAMING_UNSUPPORTED', async (t) => {
  // No definition in the API process: the host finds out.
  const runner = createEngineRunner(fixtureRunner('fake'))
  t.teardown(() => runner.close())
  const error = (await runner.openStream(noWords).catch((e) => e)) as DictumError
  t.equal(error.code, 'ENGINE_STREAMING_UNSUPPORTED')
  t.equal(error.statusCode, 501)
  t.equal((await runner.transcribe({ samples: new Float32Array(5), customWords: [] })).text, 'fake 5 samples')
})

t.test('a cancelled stream costs its host nothing more: its queued chunks are skipped', async (t) => {
  const runner = processRunner({ acceptDelayMs: 30 }, { maxStreamHosts: 1 })
  t.teardown(() => runner.close())
  const cancelled = await runner.openStream(noWords)
  for (let i = 0; i < 10; i++) cancelled.write(audio(100))
  cancelled.cancel()
  const next = await runner.openStream(noWords)
  for (let i = 0; i < 30; i++) next.write(audio(100))
  const result = await next.finish()
  t.equal(result.text.split(' ').length, 30)
  // Before, the host went on with every chunk queued for the cancelled stream (40 accepts here).
  t.ok(
    (result.debug?.acceptsInProcess as number) <= 31,
    `accepts run in the host: ${result.debug?.acceptsInProcess} (30 for the stream that finished)`,
  )
})

t.test('the engine hears of the finish at once, before the chunks queued ahead of it', async (t) => {
  const runner = processRunner({ acceptDelayMs: 30 }, { maxStreamHosts: 1 })
  t.teardown(() => runner.close())
  const stream = await runner.openStream(noWords)
  for (let i = 0; i < 10; i++) stream.write(audio(100))
  const result = await stream.finish()
  t.equal(result.text.split(' ').length, 10, 'every chunk still reaches the final')
  const told = result.debug?.chunksAtFinishing
  t.ok(typeof told === 'number' && told < 10, `finishing() after ${told} of 10 chunks`)
})

t.test(
  'a stream whose audio piles up in its host is told it has fallen behind; one that keeps up is not',
  async (t) => {
    // Each 100 ms chunk keeps the host 30 ms: 6 s written at once wait there (LIVE_LAG_SECONDS is 4).
    const runner = processRunner({ acceptDelayMs: 30 }, { maxStreamHosts: 1 })
    t.teardown(() => runner.close())
    const piled = await runner.openStream(noWords)
    for (let i = 0; i < 60; i++) piled.write(audio(100))
    const result = await piled.finish()
    t.equal(result.text.split(' ').length, 60, 'every chunk still reaches the final')
    const told = result.debug?.chunksAtFallenBehind
    t.ok(typeof told === 'number' && told < 60, `fallenBehind() after ${told} of 60 chunks`)

    // Written no faster than the host takes them: never more than a chunk waits.
    const paced = await runner.openStream(noWords)
    for (let i = 0; i < 60; i++) {
      const accepted = new Promise<void>((resolve) => paced.onPartial(() => resolve()))
      paced.write(audio(100))
      await accepted
    }
    const pacedResult = await paced.finish()
    t.equal(pacedResult.text.split(' ').length, 60)
    t.equal(pacedResult.debug?.chunksAtFallenBehind, null, 'never told')
  },
)

t.test("a finish does not wait behind another stream's chunks queued on the same host", async (t) => {
  // 6 s of audio for the first stream, each second keeping the host busy 300 ms (a decoder's live pass).
  const runner = processRunner({ busyMsPerSecond: 300 }, { maxStreamHosts: 1 })
  t.teardown(() => runner.close())
  const behind = await runner.openStream(noWords)
  const behindSamples = 60 * audio(100).length
  const started = new Promise<void>((resolve) => behind.onPartial(() => resolve()))
  for (let i = 0; i < 60; i++) behind.write(audio(100))
  // The host is working through those chunks when the other stream's open, chunk and finish arrive.
  await started
  const waiting = await runner.openStream(noWords)
  waiting.write(audio(200))
  const result = await waiting.finish()
  t.equal(result.text, 'alpha bravo')
  const done = (result.debug?.samplesInProcess as number) - audio(200).length
  // Before, each stream's calls were chained promises: the host ran every chunk already queued (a chain of
  // microtasks never yields to the event loop) before it even read the other stream's messages.
  t.ok(
    done < behindSamples,
    `samples of the first stream decoded before the finish: ${done} of ${behindSamples}`,
  )
  behind.cancel()
})
