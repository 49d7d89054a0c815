/**
 * Server VAD detectors live in the turn-detection thread (live/turn-thread.ts): loading one took 70–300 ms of
 * the API's event loop at each session's start (issue 28 item 2). Checked here: the model is never loaded on
 * this thread and the loop keeps turning while it loads; the thread's answers are the ones a detector fed
 * window by window on this thread gives, cuts included, in the order they were sent; a stopped pool fails
 * what still waits.
 */
import { createRequire } from 'node:module'
import path from 'node:path'
import t from 'tap'
import { pcmToMono } from '../../audio/pcm-convert.ts'
import { TurnDetector, type TurnDetectorOptions, type TurnEvent, WINDOW } from '../../live/turn-detector.ts'
import { TurnDetectorPool } from '../../live/turn-detector-pool.ts'
import { clipPcm, silencePcm } from './helpers.ts'

const MODEL = path.resolve(import.meta.dirname, '../../assets/silero-vad/silero_vad.onnx')
const OPTIONS: TurnDetectorOptions = {
  model: MODEL,
  threshold: 0.5,
  silenceDurationMs: 500,
  minSpeechSeconds: 0.25,
  maxUtteranceSeconds: 30,
  origin: 0,
}

/** Two clips with a second of silence between: speech starts and stops twice. */
function speech(): Float32Array {
  const pcm = Buffer.concat([
    clipPcm('cards-001.wav'),
    silencePcm(1000),
    clipPcm('cards-002.wav'),
    silencePcm(1000),
  ])
  const samples = pcmToMono(pcm, { sampleFormat: 's16', channels: 1, blockAlign: 2 })
  return samples.subarray(0, samples.length - (samples.length % WINDOW))
}

/** The sherpa-onnx addon, if this thread has loaded it. */
function sherpaLoadedHere(): boolean {
  const require = createRequire(import.meta.url)
  return Object.keys(require.cache).some((file) => file.includes(`${path.sep}sherpa-onnx-node${path.sep}`))
}

t.test('the detector loads and runs in its thread, the loop turning meanwhile', async (t) => {
  const pool = new TurnDetectorPool()
  t.teardown(() => pool.clear())
  const samples = speech()
  const detector = pool.acquire(OPTIONS)
  let turnsOfTheLoop = 0
  let answered = false
  const spin = () => {
    if (answered) return
    turnsOfTheLoop++
    setImmediate(spin)
  }
  setImmediate(spin)
  const first = await detector.accept(samples.subarray(0, 20 * WINDOW))
  answered = true
  t.ok(turnsOfTheLoop > 0, `the event loop turned ${turnsOfTheLoop} times while the model loaded`)
  t.equal(first.length, 20, 'one answer per window')
  t.notOk(sherpaLoadedHere(), 'sherpa-onnx was never loaded on the API thread')
})

t.test("the thread's turns are those of a detector fed window by window, cuts included", async (t) => {
  const samples = speech()
  const cutAt = Math.floor(samples.length / WINDOW / 2) * WINDOW
  const pool = new TurnDetectorPool()
  t.teardown(() => pool.clear())
  const detector = pool.acquire(OPTIONS)
  // batches of uneven sizes, a cut in the middle, sent without waiting: the thread keeps their order
  const batches: Promise<Array<TurnEvent | null>>[] = []
  for (let at = 0; at < cutAt; at += 7 * WINDOW)
    batches.push(detector.accept(samples.subarray(at, Math.min(at + 7 * WINDOW, cutAt))))
  detector.cut()
  batches.push(detector.accept(samples.subarray(cutAt)))
  const remote = (await Promise.all(batches)).flat()

  const local = new TurnDetector(OPTIONS) // loads sherpa-onnx here: the check above is done
  const expected: Array<TurnEvent | null> = []
  for (let at = 0; at < samples.length; at += WINDOW) {
    if (at === cutAt) local.cut()
    expected.push(local.accept(samples.subarray(at, at + WINDOW)))
  }
  t.same(remote, expected)
  t.ok(
    expected.filter((turn) => turn?.type === 'start').length >= 2,
    'the audio has speech starting more than once (the comparison is not of empty answers)',
  )
})

t.test('a reused detector starts afresh from its new origin; a stopped pool fails what waits', async (t) => {
  const samples = speech()
  const pool = new TurnDetectorPool()
  const first = pool.acquire(OPTIONS)
  const once = await first.accept(samples)
  pool.release(first, OPTIONS)
  t.equal(pool.idle, 1)
  const again = pool.acquire({ ...OPTIONS, origin: 1000 })
  t.equal(pool.created, 1, 'the idle detector was reused')
  const twice = await again.accept(samples)
  t.same(
    twice,
    once.map((turn) => (turn ? { ...turn, at: turn.at + 1000 } : null)),
    'the same turns, from the new origin',
  )
  const waiting = again.accept(samples)
  const cleared = pool.clear()
  await t.rejects(waiting, { code: 'INTERNAL' }, 'an answer still awaited fails once the pool is stopped')
  await cleared
  t.pass('the thread ended by itself')
})
