/**
 * End to end on real speech with a streaming engine: pocketsphinx decoding each item as its audio arrives
 * (its decoder's hypotheses mid-utterance). Partials grow, the deltas concatenate to the completed text, and
 * the final equals the file transcription of the same utterance. Skipped while the pocketsphinx engine does
 * not declare the streaming capability (the fallback path is tested in fallback.test.ts).
 */
import { existsSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { pcm16Wav } from '../../audio/wav-encode.ts'
import { build } from '../helpers/build.ts'
import { clipPcm, EventLog } from './helpers.ts'

const installed = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')

t.test(
  'pocketsphinx streaming: partials grow, the final is the file transcription of the utterance',
  { skip: installed ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)' },
  async (t) => {
    const app = await build(t, { speech: { engine: 'pocketsphinx' } })
    const status = await app.dictum.engines.status('pocketsphinx')
    t.equal(status.capabilities.streaming, true, 'pocketsphinx streams')
    for (const clip of ['librivox-austen-0870.wav', 'goforward.wav']) {
      const pcm = clipPcm(clip)
      const log = new EventLog()
      const session = await app.dictum.live.open(
        { turnDetection: null, inputSampleRate: 16000 },
        log.listener,
      )
      // At a speaker's pace: the host reads a commit as soon as it comes (kernel/engine-runner/
      // stream-scheduler.ts) and ends the live pass then, so audio sent all at once would get no partials.
      for (let at = 0; at < pcm.length; at += 1600) {
        session.append(pcm.subarray(at, Math.min(at + 1600, pcm.length)))
        await sleep(50)
      }
      await log.until(() => log.of('partial').length >= 3, 60_000)
      session.commit()
      await log.until(() => log.ended() === 1, 60_000)
      await session.close()

      const [completed] = log.of('completed')
      const file = await app.dictum.transcription.transcribe({ kind: 'bytes', data: pcm16Wav(pcm) })
      t.equal(completed?.transcript, file.text, `${clip}: the final is the file's text`)
      // pocketsphinx's partials come from a live pass, its final from the file pass (engines/pocketsphinx/
      // stream.ts): the deltas are the final's start unless the final revised a word already sent.
      const deltas = log.deltasOf(completed!.itemId)
      if (completed?.revised) t.not(deltas, completed.transcript, `${clip}: revised, as the event says`)
      else t.equal(deltas, completed?.transcript, `${clip}: deltas concatenate to it`)
      const words = log.of('partial').map((p) => p.text.split(' ').filter(Boolean).length)
      t.ok(words.length >= 3, `${clip}: partials while audio came (${words.length})`)
      t.ok(words.at(-1)! > words[0]!, `${clip}: they grow (${words.join(', ')})`)
    }
  },
)
