/**
 * What the service keeps after live sessions close (issue 28 item 15): each server VAD session used to make a
 * Silero detector whose native memory (~18 MB) waits for V8 to collect its wrapper, which native memory never
 * prompts: 60 sessions opened and closed took this process from 200 to 530 MB, kept after a full collection.
 * Detectors now go back to the service's pool. Counted, and the resident memory read after full collections
 * (as the VAD segmenter's memory test does).
 */
import v8 from 'node:v8'
import vm from 'node:vm'
import t from 'tap'
import type { LiveSessions } from '../../live/service.ts'
import type { LiveSessionOptions } from '../../live/types.ts'
import { build } from '../helpers/build.ts'
import { appendInChunks, clipPcm } from './helpers.ts'

const SERVER_VAD: LiveSessionOptions = {
  turnDetection: { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 },
  inputSampleRate: 16000,
}

v8.setFlagsFromString('--expose-gc')
const collectGarbage = vm.runInNewContext('gc') as () => void
const MB = 1024 * 1024
function residentAfterCollection(): number {
  collectGarbage()
  collectGarbage()
  return process.memoryUsage().rss
}

t.test('sessions opened and closed, three at a time: detectors reused, memory flat', async (t) => {
  const app = await build(t) // the fixture echo engine, in this process; the real Silero model
  const live = app.dictum.live as LiveSessions
  const pcm = clipPcm('cards-001.wav')
  const round = async () => {
    const sessions = await Promise.all([1, 2, 3].map(() => live.open(SERVER_VAD, () => {})))
    await Promise.all(sessions.map((s) => appendInChunks(s, pcm, 100)))
    await Promise.all(sessions.map((s) => s.close()))
  }
  for (let i = 0; i < 2; i++) await round()
  const before = residentAfterCollection()
  for (let i = 0; i < 20; i++) await round()
  const after = residentAfterCollection()
  t.equal(live.openSessions, 0)
  t.equal(live.turnDetectors.created, 3, '66 sessions made as many detectors as were open at once')
  t.equal(live.turnDetectors.idle, 3, 'kept for the next sessions')
  t.ok(
    after - before < 60 * MB,
    `resident memory after collections: ${(before / MB).toFixed(0)} MB after 6 sessions, ${(after / MB).toFixed(0)} MB after 66 (a detector each would add ~1 GB)`,
  )
})
