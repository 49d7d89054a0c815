/** `dictum transcribe` as a user runs it: the real pocketsphinx engine on the shared clips, every format. */
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import t from 'tap'
import { main } from '../../cli/index.ts'
import { createEngineRunner } from '../../kernel/engine-runner/index.ts'
import { audioFixturesDir, fixtureConfig, setup } from './run-cli.ts'
import { parseSrt, parseVtt, timeProblems } from './subtitle-parse.ts'

// The shortest clip of each format (pocketsphinx takes a good part of a second per second of audio, and
// the subject here is the command, not the recognition): the mp3 is the only one of its kind.
const JFK_WAV = path.join(audioFixturesDir, 'jfk.wav')
const JFK_MP3 = path.join(audioFixturesDir, 'original-formats/jfk.mp3')
const FLAC = path.join(audioFixturesDir, 'original-formats/librispeech-1089-134686-0001.flac')
const GOFORWARD = path.join(audioFixturesDir, 'goforward.wav')
const POCKETSPHINX = { speech: { engine: 'pocketsphinx' } }

t.test(
  'json: one object per file, in order; bad files named on stderr, the others done, exit 1',
  async (t) => {
    const user = setup(t, POCKETSPHINX)
    const garbage = path.join(user.dir, 'garbage.wav')
    writeFileSync(garbage, Buffer.from('definitely not a RIFF file; '.repeat(40)))
    const missing = path.join(user.dir, 'missing.wav')
    const result = await user.run([
      'transcribe',
      '--format',
      'json',
      GOFORWARD,
      garbage,
      JFK_MP3,
      missing,
      FLAC,
    ])
    t.equal(result.code, 1, 'a failed file makes the exit status 1')
    const lines = result.stdout.trim().split('\n')
    t.equal(lines.length, 3, 'the three good files were transcribed')
    const [wav, mp3, flac] = lines.map((line) => JSON.parse(line))
    t.same(
      [wav.file, mp3.file, flac.file],
      [GOFORWARD, JFK_MP3, FLAC],
      'each object names its file, in input order',
    )
    t.match(wav.text, /forward/, "wav: goforward's words")
    t.equal(wav.sampleCount, 44580, 'sampleCount: the samples of the file at 16 kHz')
    t.equal(wav.durationSeconds, 44580 / 16000)
    t.match(mp3.text, /fellow americans/, "mp3: jfk's words")
    t.equal(mp3.sampleCount, 176000, 'sampleCount: 11 s at 16 kHz')
    t.equal(mp3.durationSeconds, 11)
    t.match(flac.text, /belly/, 'flac: the librispeech words')
    for (const item of [wav, mp3, flac]) {
      t.equal(item.engine, 'pocketsphinx')
      t.type(item.provider, 'string')
      t.type(item.rawText, 'string')
      t.ok(item.confidence >= 0 && item.confidence <= 1, 'confidence in 0..1')
      t.ok(item.segments.length > 0, 'segments present')
      for (const s of item.segments) t.ok(s.end > s.start && s.start >= 0, 'segment times are ordered')
      t.ok(Array.isArray(item.words), 'pocketsphinx gives word timings')
    }
    t.match(result.stderr, `${garbage}: Could not decode audio:`, 'the garbage file is named with the reason')
    t.match(result.stderr, `${missing}: Audio file not found:`, 'the missing file is named with the reason')
    t.equal(result.stderr.trim().split('\n').length, 2, 'one line per failed file, nothing else')
  },
)

t.test('every file failing at once: exit 1, and no engine process keeps the command alive', async (t) => {
  // The engine starts loading (in an engine host, as the command runs it) while the audio is opened; the
  // command must still end once it is done.
  const user = setup(t, POCKETSPHINX)
  const garbage = path.join(user.dir, 'garbage.mp3')
  writeFileSync(garbage, Buffer.from('ID3 but nothing else '.repeat(10)))
  const result = await user.run(['transcribe', garbage, path.join(user.dir, 'missing.flac')], {
    runnerFactory: createEngineRunner,
  })
  t.equal(result.code, 1)
  t.match(result.stderr, 'garbage.mp3: Could not decode audio:')
  t.match(result.stderr, 'missing.flac: Audio file not found:')
})

t.test('srt on stdout, vtt written into --output-dir', async (t) => {
  const user = setup(t, POCKETSPHINX)
  const srt = await user.run(['transcribe', '-f', 'srt', JFK_WAV])
  t.equal(srt.code, 0, srt.stderr)
  const cues = parseSrt(srt.stdout)
  t.ok(cues.length > 0, 'at least one cue')
  t.same(timeProblems(cues), [], 'cues numbered from 1, times increasing')
  t.match(cues.map((c) => c.text).join(' '), /country/)
  t.ok(cues.at(-1)!.end <= 11, 'no cue past the end of the audio')

  const out = path.join(user.dir, 'subs')
  const vtt = await user.run(['transcribe', '--format', 'vtt', '--output-dir', out, GOFORWARD, FLAC])
  t.equal(vtt.code, 0, vtt.stderr)
  const written = [path.join(out, 'goforward.wav.vtt'), path.join(out, `${path.basename(FLAC)}.vtt`)]
  t.same(vtt.stdout.trim().split('\n'), written, 'the written files are listed on stdout')
  const goforward = parseVtt(readFileSync(written[0]!, 'utf8'))
  t.same(timeProblems(goforward), [])
  t.match(goforward.map((c) => c.text).join(' '), /forward/)
  t.match(
    parseVtt(readFileSync(written[1]!, 'utf8'))
      .map((c) => c.text)
      .join(' '),
    /belly/,
  )
})

t.test('text: stdout, and --next-to writes <file>.txt beside the audio', async (t) => {
  const user = setup(t, POCKETSPHINX)
  const stdout = await user.run(['transcribe', GOFORWARD])
  t.equal(stdout.code, 0, stdout.stderr)
  t.match(stdout.stdout, /^[a-z ]*forward[a-z ]*\n$/, 'the text alone, one line')
  const copy = path.join(user.dir, 'clip.wav')
  copyFileSync(GOFORWARD, copy)
  const beside = await user.run(['transcribe', '--next-to', 'clip.wav'])
  t.equal(beside.code, 0, beside.stderr)
  t.equal(beside.stdout, `${copy}.txt\n`)
  t.equal(readFileSync(`${copy}.txt`, 'utf8'), stdout.stdout, 'same text as on stdout')
})

t.test('several text documents on stdout are headed by their file; replacements apply', async (t) => {
  const user = setup(t, fixtureConfig({ text: 'we are gonna ship it' }))
  const dictionary = path.join(user.dir, 'dict.json')
  writeFileSync(
    dictionary,
    JSON.stringify({ replacements: [{ triggers: ['gonna'], replacement: 'going to' }] }),
  )
  t.equal((await user.run(['dictionary', 'import', dictionary])).code, 0)
  const result = await user.run(['transcribe', GOFORWARD, JFK_WAV])
  t.equal(result.code, 0, result.stderr)
  t.equal(
    result.stdout,
    `==> ${GOFORWARD} <==\nwe are going to ship it\n\n==> ${JFK_WAV} <==\nwe are going to ship it\n`,
  )
})

t.test('usage errors exit 2; an unavailable engine exits 3 before any file', async (t) => {
  const user = setup(t, fixtureConfig())
  const [none, both, format, engine] = await Promise.all([
    user.run(['transcribe']),
    user.run(['transcribe', '--next-to', '-o', 'x', GOFORWARD]),
    user.run(['transcribe', '-f', 'docx', GOFORWARD]),
    user.run(['transcribe', '--engine', 'nope', GOFORWARD]),
  ])
  t.equal(none.code, 2)
  t.match(none.stderr, 'No audio file given')
  t.equal(both.code, 2)
  t.equal(format.code, 2)
  t.match(format.stderr, 'Unknown format "docx"')
  t.equal(engine.code, 2)
  t.match(engine.stderr, 'Unknown engine "nope"')
  t.notOk(existsSync(path.join(user.dir, 'x')), 'nothing was created')

  const sherpa = setup(t, { speech: { engine: 'sherpa-onnx' } })
  const unavailable = await sherpa.run(['transcribe', GOFORWARD, JFK_WAV])
  t.equal(unavailable.code, 3, 'exit 3: the engine cannot run')
  t.match(unavailable.stderr, /Speech engine unavailable: .*dictum models pull/)
  t.equal(unavailable.stdout, '')
})

t.test('a progress bar across files on stderr when it is a terminal, nothing otherwise', async (t) => {
  const user = setup(t, fixtureConfig())
  const run = async (stderrIsTTY: boolean) => {
    const out = { stdout: '', stderr: '' }
    const stdout = new PassThrough().on('data', (chunk) => (out.stdout += chunk))
    const stderr = new PassThrough().on('data', (chunk) => (out.stderr += chunk))
    const io = { stdout, stderr, isTTY: false, stderrIsTTY, env: user.env, cwd: user.dir }
    const code = await main(
      ['transcribe', '-o', path.join(user.dir, 'out'), ...user.args, GOFORWARD, JFK_WAV],
      io,
    )
    return { code, ...out }
  }
  const tty = await run(true)
  t.equal(tty.code, 0, tty.stderr)
  t.match(tty.stderr, '\r\x1b[2KTranscribing [', 'redrawn in place')
  t.match(tty.stderr, /0% {2}0\/2 .*goforward\.wav/, 'names the file being transcribed')
  t.match(tty.stderr, /100% {2}2\/2/, 'ends full')
  t.ok(tty.stderr.endsWith('\n'), 'the bar line is ended')
  t.equal(tty.stdout.trim().split('\n').length, 2, 'the written files are listed on stdout')
  const plain = await run(false)
  t.equal(plain.code, 0)
  t.equal(plain.stderr, '', 'no progress output when stderr is not a terminal')
})
