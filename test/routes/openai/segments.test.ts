/**
 * verbose_json segments follow the pauses (issue: a 60 s clip came back as one 0.03–59.96 s segment):
 * real pocketsphinx on speech with pauses (four of the shared clips, 1 s of silence between them: 13 s,
 * a fifth of the minute-long recording's decoding), and the segment rule on its own.
 */
import path from 'node:path'
import t from 'tap'
import type { EngineTranscribeResult } from '../../../kernel/contracts/engine.ts'
import { segmentsOf } from '../../../transcription/join.ts'
import { readClip } from '../../engines/pocketsphinx/clips.ts'
import { build } from '../../helpers/build.ts'
import { audioFixturesDir, clipsWithPauses } from '../../helpers/wav.ts'

const CLIPS = ['goforward.wav', 'cards-001.wav', 'librivox-austen-0880.wav', 'cards-003.wav']
const LONG = clipsWithPauses(
  await Promise.all(CLIPS.map((name) => readClip(path.join(audioFixturesDir, name)))),
  1,
)

t.test('speech with pauses: several ordered segments that spell the text', async (t) => {
  const app = await build(t, { speech: { engine: 'pocketsphinx' } })
  const body = new FormData()
  body.append('file', new Blob([LONG], { type: 'audio/wav' }), 'long.wav')
  body.append('model', 'whisper-1')
  body.append('response_format', 'verbose_json')
  const request = new Request('http://localhost/v1/audio/transcriptions', { method: 'POST', body })
  const response = await app.inject({
    method: 'POST',
    url: '/v1/audio/transcriptions',
    headers: Object.fromEntries(request.headers),
    payload: Buffer.from(await request.arrayBuffer()),
  })
  t.equal(response.statusCode, 200, response.body)
  const result = response.json() as {
    text: string
    duration: number
    segments: { id: number; start: number; end: number; text: string }[]
  }
  t.ok(result.segments.length >= 4, `segments follow the pauses (got ${result.segments.length})`)
  let previousEnd = 0
  for (const [index, segment] of result.segments.entries()) {
    t.equal(segment.id, index)
    t.ok(segment.start >= previousEnd - 1e-6, `segment ${index} starts after the previous one ends`)
    t.ok(segment.end > segment.start, `segment ${index} has a length`)
    t.ok(segment.end - segment.start <= 30 + 1e-6, `segment ${index} is at most 30 s`)
    previousEnd = segment.end
  }
  t.ok(previousEnd <= result.duration + 1e-6, 'inside the audio')
  t.equal(
    result.segments.map((s) => s.text.trim()).join(' '),
    result.text.trim(),
    'the segments spell the transcript',
  )
})

const word = (w: string, start: number, end: number) => ({ word: w, start, end })

t.test('segmentsOf: cut at pauses of 0.5 s, at most 30 s, only when the words spell the text', async (t) => {
  const result: EngineTranscribeResult = {
    text: 'one two three four',
    confidence: 0.9,
    segments: [{ text: 'one two three four', start: 0, end: 5 }],
    words: [word('one', 0, 0.4), word('two', 0.5, 0.9), word('three', 2, 2.5), word('four', 2.6, 3)],
  }
  t.same(segmentsOf(result, 5), [
    { text: 'one two', start: 0, end: 0.9 },
    { text: 'three four', start: 2, end: 3 },
  ])

  const own = { ...result, segments: [result.segments![0]!, { text: 'x', start: 4, end: 5 }] }
  t.same(segmentsOf(own, 5), own.segments, "an engine's own several segments are kept")

  const rewritten = { ...result, text: 'one two 3 four' }
  t.same(segmentsOf(rewritten, 5), result.segments, 'words that do not spell the text: one segment stays')

  const { words: _words, ...noWords } = result
  t.same(segmentsOf(noWords, 5), result.segments)

  const steady = Array.from({ length: 80 }, (_, i) => word(`w${i}`, i * 0.5, i * 0.5 + 0.45))
  const long = segmentsOf(
    { text: steady.map((w) => w.word).join(' '), confidence: 1, segments: [], words: steady },
    40,
  )
  t.equal(long.length, 2, 'speech without pauses is cut at 30 s')
  t.ok(long.every((s) => s.end - s.start <= 30))
})
