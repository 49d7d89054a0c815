/** Subtitle cues and their SRT / WebVTT text, the same from the CLI and the API. */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { cuesOf, formatSrt, formatTimestamp, formatVtt, wrapLines } from '../../transcription/subtitles.ts'
import { build } from '../helpers/build.ts'
import { listen } from '../helpers/http.ts'
import { audioFixturesDir, fixtureConfig, setup } from './run-cli.ts'
import { parseSrt, parseVtt, timeProblems } from './subtitle-parse.ts'

t.test('timestamps', async (t) => {
  t.equal(formatTimestamp(0, ','), '00:00:00,000')
  t.equal(formatTimestamp(1000, ','), '00:00:01,000')
  t.equal(formatTimestamp(1000, '.'), '00:00:01.000')
  t.equal(formatTimestamp(3_661_005, ','), '01:01:01,005')
  t.equal(formatTimestamp(59_999.6, '.'), '00:01:00.000', 'rounded to the millisecond, carried')
  t.equal(formatTimestamp(100 * 3_600_000, '.'), '100:00:00.000', 'hours past 99')
})

t.test('one cue per short segment; a transcript without segments is one cue over the audio', async (t) => {
  const segments = [
    { text: 'hello there', start: 0.25, end: 1.5 },
    { text: '  ', start: 1.5, end: 2 },
    { text: 'general kenobi', start: 2.1, end: 3.0004 },
  ]
  t.same(cuesOf({ text: 'hello there general kenobi', durationSeconds: 4, segments, words: null }), [
    { startMs: 250, endMs: 1500, text: 'hello there' },
    { startMs: 2100, endMs: 3000, text: 'general kenobi' },
  ])
  t.same(cuesOf({ text: 'all of it', durationSeconds: 2.5, segments: [], words: null }), [
    { startMs: 0, endMs: 2500, text: 'all of it' },
  ])
  t.same(cuesOf({ text: '', durationSeconds: 2.5, segments: [], words: null }), [], 'silence: no cue')
})

t.test('overlapping or zero-length segments still give increasing times', async (t) => {
  const cues = cuesOf({
    text: 'a b c',
    durationSeconds: 3,
    segments: [
      { text: 'b', start: 1, end: 2 },
      { text: 'a', start: 0, end: 1.2 },
      { text: 'c', start: 1.5, end: 1.5 },
    ],
    words: null,
  })
  t.same(
    cues.map((c) => c.text),
    ['a', 'b', 'c'],
    'sorted by start',
  )
  t.same(timeProblems(parseSrt(formatSrt(cues))), [])
})

t.test('a long segment is cut into cues at word timings, replacements applied to each', async (t) => {
  const words = Array.from({ length: 30 }, (_, i) => ({
    word: i === 3 ? 'gonna' : `word${i}`,
    start: i * 0.5,
    end: i * 0.5 + 0.4,
  }))
  const replace = (text: string) => text.replaceAll('gonna', 'going to')
  const text = replace(words.map((w) => w.word).join(' '))
  const cues = cuesOf(
    { text, durationSeconds: 15, segments: [{ text, start: 0, end: 14.9 }], words },
    replace,
  )
  t.ok(cues.length >= 3, `cut into ${cues.length} cues`)
  t.equal(cues.map((c) => c.text).join(' '), text, 'no word lost or repeated')
  t.match(cues[0]!.text, 'going to')
  for (const cue of cues) t.ok(cue.endMs - cue.startMs <= 7000, 'each cue at most 7 s')
  t.same(timeProblems(parseVtt(formatVtt(cues))), [])

  const across = (s: string) => s.replace('word13 word14', 'JOINED')
  const joinedText = across(words.map((w) => w.word).join(' '))
  const whole = cuesOf(
    { text: joinedText, durationSeconds: 15, segments: [{ text: joinedText, start: 0, end: 14.9 }], words },
    across,
  )
  t.equal(whole.length >= 1, true)
  t.equal(whole.map((c) => c.text).join(' '), joinedText, 'a replacement across a cut keeps the segment text')
})

t.test('SRT and WebVTT text', async (t) => {
  const cues = [
    { startMs: 0, endMs: 1000, text: 'one' },
    { startMs: 1000, endMs: 2500, text: 'a <b> & c' },
  ]
  t.equal(
    formatSrt(cues),
    '1\n00:00:00,000 --> 00:00:01,000\none\n\n2\n00:00:01,000 --> 00:00:02,500\na <b> & c\n',
  )
  t.equal(
    formatVtt(cues),
    'WEBVTT\n\n00:00:00.000 --> 00:00:01.000\none\n\n00:00:01.000 --> 00:00:02.500\na &lt;b&gt; &amp; c\n',
  )
  t.equal(formatSrt([]), '')
  t.equal(formatVtt([]), 'WEBVTT\n')
})

t.test('lines wrap at spaces near 42 characters', async (t) => {
  const lines = wrapLines('the quick brown fox jumps over the lazy dog and keeps running far away')
  t.ok(lines.length === 2 && lines.every((l) => l.length <= 42), JSON.stringify(lines))
  t.same(wrapLines('supercalifragilisticexpialidocious'.repeat(2)), [
    'supercalifragilisticexpialidocious'.repeat(2),
  ])
})

t.test('the same audio gives the same documents from the CLI and from the OpenAI route', async (t) => {
  // Longer than a subtitle line, with the characters WebVTT escapes: the two writers differed on both.
  const text = 'Q&A: the <draft> is ready & the review starts after lunch > before the meeting ends'
  const cli = setup(t, fixtureConfig({ text }))
  const app = await build(t, { speech: { engines: { 'fixture-echo': { text } } } })
  const port = await listen(t, app)
  const clip = path.join(audioFixturesDir, 'goforward.wav')
  for (const format of ['vtt', 'srt', 'text', 'verbose_json'] as const) {
    const body = new FormData()
    body.append('file', new Blob([readFileSync(clip)], { type: 'audio/wav' }), 'goforward.wav')
    body.append('model', 'whisper-1')
    body.append('response_format', format)
    body.append('timestamp_granularities[]', 'word')
    body.append('timestamp_granularities[]', 'segment')
    const api = await fetch(`http://127.0.0.1:${port}/v1/audio/transcriptions`, { method: 'POST', body })
    t.equal(api.status, 200)
    const fromApi = await api.text()
    const fromCli = await cli.run(['transcribe', '--format', format, clip])
    t.equal(fromCli.code, 0, fromCli.stderr)
    // JSON: one line on stdout, ended by a newline as every line of a file; the same document otherwise.
    const cliDocument = format === 'verbose_json' ? fromCli.stdout.trimEnd() : fromCli.stdout
    t.equal(cliDocument, fromApi, `${format}: the CLI writes what the API answers`)
    if (format === 'text' || format === 'verbose_json') continue
    if (format === 'vtt') t.match(fromApi, /Q&amp;A: the &lt;draft&gt;/, 'escaped as WebVTT requires')
    // Lines are wrapped at 42 characters as a person reads them (before WebVTT's escapes lengthen them).
    const unescaped = fromApi.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&')
    t.ok(
      unescaped.split('\n').every((line) => line.length <= 42),
      `${format}: lines wrapped at 42 characters`,
    )
  }
})
