/**
 * The official `openai` client's streamed transcription (`stream: true`) against dictum over real HTTP, with
 * the real pocketsphinx engine on the repo's speech clips: the client iterates `transcript.text.delta`
 * events and a final `transcript.text.done`; the deltas concatenate to the done text, which is the text of
 * the same request without `stream`. With pieces of at most 4 s, the VAD cuts each clip at its pauses into
 * several pieces, each its own delta.
 */
import { createReadStream, existsSync } from 'node:fs'
import path from 'node:path'
import OpenAI from 'openai'
import type { TranscriptionStreamEvent } from 'openai/resources/audio/transcriptions'
import t from 'tap'
import { audioFixturesDir } from '../../engines/pocketsphinx/clips.ts'
import { build } from '../../helpers/build.ts'
import { listen } from '../../helpers/http.ts'

const installed = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')
const skip = installed ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)'

// Clips longer than the 4 s pieces, and no longer than needed: 5.3 and 7.1 s (each is decoded twice).
const CLIPS = ['librivox-austen-0890.wav', 'librivox-austen-0870.wav']

t.test('stream: true through the openai client on real speech', { skip }, async (t) => {
  const app = await build(t, { speech: { engine: 'pocketsphinx' }, vad: { maxSegmentSeconds: 4 } })
  const port = await listen(t, app)
  const client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'x', maxRetries: 0 })
  for (const clip of CLIPS) {
    const file = () => createReadStream(path.join(audioFixturesDir, clip))
    const plain = await client.audio.transcriptions.create({ file: file(), model: 'gpt-4o-transcribe' })
    const stream = await client.audio.transcriptions.create({
      file: file(),
      model: 'gpt-4o-transcribe',
      stream: true,
    })
    const events: TranscriptionStreamEvent[] = []
    for await (const event of stream) events.push(event)
    const done = events.pop()
    if (done?.type !== 'transcript.text.done') throw new Error(`${clip}: the stream ends with done`)
    const deltas = events.map((event) => (event.type === 'transcript.text.delta' ? event.delta : null))
    t.notOk(deltas.includes(null), `${clip}: only deltas before done`)
    t.ok(deltas.length >= 2, `${clip}: ${deltas.length} deltas, one per piece`)
    t.equal(deltas.join(''), done.text, `${clip}: the deltas concatenate to the done text`)
    t.equal(done.text, plain.text, `${clip}: the done text is the non-streamed text`)
    t.match(done.text, /\w+ \w+/, `${clip}: words were recognised`)
  }
})
