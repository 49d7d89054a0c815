/** The stop-at-pause recorder with the real Silero VAD: why and where a recording stops. */
import path from 'node:path'
import t from 'tap'
import { AudioDecoder } from '../../audio/index.ts'
import { recordUntilPause } from '../../cli/record-until-pause.ts'
import { VadSegmenter } from '../../vad/index.ts'
import { bundledVadModel } from '../../vad/service.ts'
import { audioFixturesDir, tempDir } from './run-cli.ts'

const RATE = 16000
const fallback = bundledVadModel()

async function* chunked(samples: Float32Array, size = 1600): AsyncGenerator<Float32Array> {
  for (let at = 0; at < samples.length; at += size) yield samples.subarray(at, at + size)
}

t.test('recordUntilPause', async (t) => {
  t.ok(fallback, 'dictum ships a Silero model')
  {
    const decoder = new AudioDecoder({ maxSeconds: 60 })
    const jfk = await decoder.decode({ kind: 'file', path: path.join(audioFixturesDir, 'jfk.wav') })
    const go = await decoder.decode({ kind: 'file', path: path.join(audioFixturesDir, 'goforward.wav') })
    await decoder.close()
    const paused = new Float32Array(jfk.length + 3 * RATE + go.length)
    paused.set(jfk)
    paused.set(go, jfk.length + 3 * RATE)
    const open = (silence: number) =>
      VadSegmenter.open(
        {
          enabled: true,
          model: null,
          threshold: 0.5,
          minSilenceSeconds: silence,
          minSpeechSeconds: 0.25,
          maxSegmentSeconds: null,
        },
        { modelsDir: tempDir(t), fallbackModel: fallback! },
      )
    const never = new AbortController().signal
    const base = { maxSeconds: 60, stop: never, signal: never }

    const vad = await open(2)
    t.teardown(() => vad.close())
    const pause = await recordUntilPause(chunked(paused), { ...base, vad })
    t.equal(pause.stoppedBy, 'pause')
    t.ok(pause.heardSpeech)
    t.ok(pause.samples.length > jfk.length - RATE, 'kept the speech before the pause')
    t.ok(pause.samples.length < jfk.length + 3 * RATE, 'stopped inside the pause')
    t.same(pause.samples.subarray(0, 1000), paused.subarray(0, 1000), 'the samples as they came')

    const longer = await open(5)
    t.teardown(() => longer.close())
    const end = await recordUntilPause(chunked(paused), { ...base, vad: longer })
    t.equal(end.stoppedBy, 'end', 'a shorter pause does not stop it')
    t.equal(end.samples.length, paused.length)
    t.ok(end.heardSpeech)

    const limit = await recordUntilPause(chunked(paused, 1234), { ...base, maxSeconds: 2, vad })
    t.equal(limit.stoppedBy, 'limit')
    t.equal(limit.samples.length, 2 * RATE, 'cut exactly at the limit')

    const stop = new AbortController()
    let chunks = 0
    const stopped = await recordUntilPause(chunked(paused), {
      ...base,
      vad,
      stop: stop.signal,
      onAudio: () => chunks++,
    })
    t.equal(stopped.stoppedBy, 'pause', 'control run: the stop signal alone changes nothing')
    t.equal(chunks, 1, 'onAudio once')
    async function* stopAfter(n: number) {
      let i = 0
      for await (const chunk of chunked(paused)) {
        if (i++ === n) stop.abort()
        yield chunk
      }
    }
    const early = await recordUntilPause(stopAfter(10), { ...base, vad, stop: stop.signal })
    t.equal(early.stoppedBy, 'stopped')
    t.equal(early.samples.length, 10 * 1600, 'what came before the stop is kept')

    const noVad = await recordUntilPause(chunked(paused), { ...base, vad: null })
    t.same([noVad.stoppedBy, noVad.heardSpeech, noVad.samples.length], ['end', false, paused.length])

    const abort = new AbortController()
    abort.abort(new Error('gone'))
    await t.rejects(recordUntilPause(chunked(paused), { ...base, vad, signal: abort.signal }), /gone/)
  }
})
