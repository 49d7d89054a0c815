/**
 * Live sessions on an engine that does not stream (pocketsphinx's whole-utterance path, isolated in its
 * engine host): each item is transcribed whole at its end, and its text is what the transcription service
 * (POST /v1/transcribe) gives for the same audio. Real clips as PCM16, appended in 40–100 ms chunks
 * without pacing; turn detection by the client's commits and by the server VAD (Silero) on pauses.
 */
import { existsSync } from 'node:fs'
import t from 'tap'
import { pcm16Wav } from '../../audio/wav-encode.ts'
import type { LiveSessionOptions } from '../../live/types.ts'
import { build } from '../helpers/build.ts'
import { appendInChunks, clipPcm, clipPcmAt24k, EventLog, silencePcm } from './helpers.ts'

const installed = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')
const skip = installed ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)'
const COMMIT: LiveSessionOptions = { turnDetection: null, inputSampleRate: 16000 }

// one app (one engine load) for every case
const app = installed
  ? await build(t, {
      speech: { engine: 'pocketsphinx', engines: { pocketsphinx: { streaming: false } } },
      history: { enabled: true },
    })
  : (null as never)

t.test(
  'client commits: each item is the file transcription of its clip, rules applied, in history',
  { skip },
  async (t) => {
    const { live, dictionary, transcription, history } = app.dictum
    await dictionary.writeReplacements({ triggers: ['go forward'], replacement: 'Go-Forward' })
    const log = new EventLog()
    const session = await live.open({ ...COMMIT, history: { appName: 'Live Test' } }, log.listener)
    const clips = ['goforward.wav', 'cards-001.wav', 'cards-002.wav']
    for (const [i, clip] of clips.entries()) {
      await appendInChunks(session, clipPcm(clip), [40, 70, 100][i]!)
      session.commit()
    }
    await log.until(() => log.ended() === clips.length, 60_000)
    await session.close()

    const completed = log.of('completed')
    t.equal(completed.length, clips.length)
    for (const [i, clip] of clips.entries()) {
      const file = await transcription.transcribe({ kind: 'bytes', data: pcm16Wav(clipPcm(clip)) })
      const item = completed[i]!
      t.ok(file.text.length > 0, `${clip}: the file transcription has text`)
      t.equal(item.transcript, file.text, `${clip}: the item's text is the file's`)
      t.equal(item.rawText, file.rawText, `${clip}: and its raw text`)
      t.same(
        log
          .of('delta')
          .filter((d) => d.itemId === item.itemId)
          .map((d) => d.delta),
        [item.transcript],
        `${clip}: one delta with the whole text`,
      )
      t.equal(item.provider, 'PocketSphinx (en-US)')
    }
    t.match(completed[0]?.transcript, /^Go-Forward/, 'the replacement rule applied')
    t.equal(log.of('partial').length, 0, 'no partials without streaming')
    const stored = history.list(10).items
    t.equal(stored.length, clips.length, 'each item in history')
    t.same(
      stored.map((e) => [e.id, e.finalText, e.appName]).reverse(),
      completed.map((c) => [c.historyId, c.transcript, 'Live Test']),
      'with its id in the completed event',
    )
  },
)

t.test(
  'server VAD on clips with pauses: one item per utterance, each the file transcription of its audio',
  { skip },
  async (t) => {
    const { live, transcription } = app.dictum
    const pcm = Buffer.concat([
      silencePcm(400),
      clipPcm('cards-003.wav'),
      silencePcm(1200),
      clipPcm('goforward.wav'),
      silencePcm(1200),
      clipPcm('cards-001.wav'),
      silencePcm(1200),
    ])
    const log = new EventLog()
    const session = await live.open(
      {
        turnDetection: { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 },
        inputSampleRate: 16000,
      },
      log.listener,
    )
    await appendInChunks(session, pcm, 80)
    await log.until(() => log.ended() === 3, 60_000)
    await session.close()

    t.same(
      log.events
        .filter((e) => e.type !== 'delta')
        .map((e) => e.type)
        .slice(0, 3),
      ['speech_started', 'speech_stopped', 'committed'],
    )
    const started = log.of('speech_started')
    const stopped = log.of('speech_stopped')
    t.equal(started.length, 3, 'three utterances')
    t.equal(stopped.length, 3)
    // clip onsets in the session; speech is heard a little after them, and the padding goes before
    const seconds = (clip: string) => clipPcm(clip).length / 32000
    const second = 0.4 + seconds('cards-003.wav') + 1.2
    const boundaries = [0.4, second, second + seconds('goforward.wav') + 1.2]
    for (const [i, event] of started.entries()) {
      t.ok(
        event.audioStartMs >= 0 && event.audioStartMs / 1000 < boundaries[i]! + 1,
        `start ${event.audioStartMs} ms`,
      )
      if (i > 0) t.ok(event.audioStartMs / 1000 > boundaries[i]! - 1.2, 'not in the previous utterance')
      t.ok(stopped[i]!.audioEndMs > event.audioStartMs, 'stops after it starts')
    }
    const samples = pcm.length / 2
    for (const item of log.of('completed')) {
      const from = Math.round(item.startSeconds * 16000) * 2
      const to = Math.min(samples, Math.round(item.endSeconds * 16000)) * 2
      const file = await transcription.transcribe({ kind: 'bytes', data: pcm16Wav(pcm.subarray(from, to)) })
      t.ok(item.transcript.length > 0, `item ${item.startSeconds}..${item.endSeconds} s has text`)
      t.equal(item.transcript, file.text, 'the same as the file transcription of the same audio')
      t.equal(log.deltasOf(item.itemId), item.transcript, 'deltas concatenate to the transcript')
    }
  },
)

t.test('24 kHz input: the text of the 24 kHz file', { skip }, async (t) => {
  const pcm24 = clipPcmAt24k('librivox-austen-0880.wav')
  const log = new EventLog()
  const session = await app.dictum.live.open({ ...COMMIT, inputSampleRate: 24000 }, log.listener)
  await appendInChunks(session, pcm24, 60, 24000)
  session.commit()
  await log.until(() => log.ended() === 1, 60_000)
  await session.close()
  const file = await app.dictum.transcription.transcribe({ kind: 'bytes', data: pcm16Wav(pcm24, 24000) })
  t.ok(file.text.split(' ').length >= 5, `real text: ${file.text}`)
  t.equal(log.of('completed')[0]?.transcript, file.text)
})
