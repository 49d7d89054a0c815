/**
 * A live session whose engine host is killed mid-item (the fixture streaming engine in its own process,
 * aborting on a stream's 31st chunk): that item fails, the next completes on a new host. The host process is
 * the subject, so this runs in the process tier.
 */
import path from 'node:path'
import t from 'tap'
import { pcmToMono } from '../../../audio/pcm-convert.ts'
import type { LiveSessionOptions } from '../../../live/types.ts'
import { expectedText } from '../../fixtures/plugins/streaming-engine.ts'
import { build, FIXTURES } from '../../helpers/build.ts'
import { appendInChunks, clipPcm, EventLog } from '../../live/helpers.ts'

const STREAMING = path.join(FIXTURES, 'plugins/streaming-engine.ts')
const COMMIT: LiveSessionOptions = { turnDetection: null, inputSampleRate: 16000 }
const samplesOf = (pcm: Buffer) => pcmToMono(pcm, { sampleFormat: 's16', channels: 1, blockAlign: 2 })

t.test(
  'an engine host killed mid-item: that item fails, the next item completes on a new host',
  async (t) => {
    // the fixture aborts its host on a stream's 31st chunk: 66 chunks of 50 ms crash it, 22 do not
    const app = await build(t, {
      plugins: [STREAMING],
      speech: { engine: 'fixture-streaming', engines: { 'fixture-streaming': { crashAfterChunks: 30 } } },
    })
    const log = new EventLog()
    const session = await app.dictum.live.open(COMMIT, log.listener)
    await appendInChunks(session, clipPcm('librispeech-1089-134686-0001.wav'), 50)
    session.commit()
    await log.until(() => log.ended() === 1)
    const short = clipPcm('cards-001.wav')
    await appendInChunks(session, short, 50)
    session.commit()
    await log.until(() => log.ended() === 2)
    await session.close()

    const [failed] = log.of('failed')
    const [completed] = log.of('completed')
    t.equal(failed?.error.code, 'ENGINE_CRASHED', 'the crash fails the item')
    t.equal(failed?.itemId, log.of('committed')[0]?.itemId)
    t.equal(completed?.itemId, log.of('committed')[1]?.itemId, 'the next item completes')
    t.equal(completed?.transcript, expectedText(samplesOf(short), 100))
    t.equal(log.of('error').length, 0, 'the session went on')
    const next = new EventLog()
    const again = await app.dictum.live.open(COMMIT, next.listener)
    await appendInChunks(again, short, 50)
    await again.close()
    t.equal(next.of('completed')[0]?.transcript, completed?.transcript, 'and a new session works')
  },
)
