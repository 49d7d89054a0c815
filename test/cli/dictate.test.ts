/**
 * `dictum dictate` as a user runs it: a file standing in for the microphone (same stop-at-pause logic), a
 * device that cannot be opened, clipboard and typing tools. The real ffmpeg capture path stopped by Ctrl-C
 * is test/process/cli-interrupt.test.ts.
 */
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { encodeWav16 } from '../../audio/wav-encode.ts'
import { GAP_SECONDS, pausedClip, RATE, samplesHeard } from './paused-clip.ts'
import { audioFixturesDir, fixtureConfig, setup, tempDir } from './run-cli.ts'

t.test('pocketsphinx: stops at the pause, prints the text, stores the entry; history shows it', async (t) => {
  const user = setup(t, { speech: { engine: 'pocketsphinx' } })
  const clip = await pausedClip(user.dir)
  const result = await user.run([
    'dictate',
    '--input',
    clip.file,
    '--silence',
    '2',
    '--app-name',
    'Editor',
    '--window-title',
    'notes.txt',
    '--json',
  ])
  t.equal(result.code, 0, result.stderr)
  const entry = JSON.parse(result.stdout)
  t.match(entry.finalText, /belly/, 'the words before the pause')
  t.notMatch(entry.finalText, /forward|meters/, 'nothing after the pause')
  t.equal(entry.appName, 'Editor')
  t.equal(entry.windowTitle, 'notes.txt')
  t.equal(entry.wasAIProcessed, false)

  const history = await user.run(['history', '--json'])
  t.equal(history.code, 0, history.stderr)
  const list = JSON.parse(history.stdout)
  t.equal(list.count, 1)
  t.same(list.items[0], entry, 'the stored entry is the printed one')

  const longer = await user.run(['dictate', '--input', clip.file, '--silence', String(GAP_SECONDS + 2)])
  t.equal(longer.code, 0, longer.stderr)
  t.match(longer.stdout, /forward/, 'a pause shorter than --silence does not stop the recording')
  t.match(longer.stdout, /^[^\n]+\n$/, 'plain output: the text on one line')
})

t.test('fixture engine: the recording ends after the pause, not at the end of the file', async (t) => {
  const user = setup(t, fixtureConfig())
  const clip = await pausedClip(user.dir)
  const result = await user.run(['dictate', '--input', clip.file, '--silence', '1.5'])
  t.equal(result.code, 0, result.stderr)
  const heard = samplesHeard(result.stdout)
  t.ok(heard < clip.firstSamples + GAP_SECONDS * RATE, `stopped during the gap (${heard} samples)`)
  t.ok(heard > RATE, 'kept what was said before')
})

t.test('a microphone that cannot be opened: exit 3 naming the device', async (t) => {
  const user = setup(t, fixtureConfig())
  const result = await user.run(['dictate', '--backend', 'lavfi', '--device', 'nosuchsource=x'])
  t.equal(result.code, 3)
  t.match(result.stderr, 'Could not record from lavfi device "nosuchsource=x"')
})

t.test('--copy and --type hand the text to the tools found on PATH', async (t) => {
  const user = setup(t, fixtureConfig({ text: 'copy me please' }))
  const clip = await pausedClip(user.dir)
  const bin = path.join(user.dir, 'bin')
  mkdirSync(bin)
  for (const tool of ['xclip', 'xdotool']) {
    const script = path.join(bin, tool)
    writeFileSync(script, `#!/bin/sh\necho "$@" > "${bin}/${tool}.args"\ncat > "${bin}/${tool}.stdin"\n`)
    chmodSync(script, 0o755)
  }
  const env: NodeJS.ProcessEnv = {
    ...user.env,
    PATH: `${bin}${path.delimiter}${user.env.PATH}`,
    DISPLAY: ':9',
  }
  delete env.WAYLAND_DISPLAY
  const result = await user.run(['dictate', '--input', clip.file, '--copy', '--type'], { env })
  t.equal(result.code, 0, result.stderr)
  t.equal(result.stdout, 'copy me please\n')
  t.equal(readFileSync(path.join(bin, 'xclip.stdin'), 'utf8'), 'copy me please')
  t.equal(readFileSync(path.join(bin, 'xclip.args'), 'utf8'), '-selection clipboard\n')
  t.equal(readFileSync(path.join(bin, 'xdotool.stdin'), 'utf8'), 'copy me please')
  t.equal(readFileSync(path.join(bin, 'xdotool.args'), 'utf8'), 'type --clearmodifiers --delay 2 --file -\n')
  // --type-delay sets the pause between keys; a value out of range is refused before recording.
  const slower = await user.run(['dictate', '--input', clip.file, '--type', '--type-delay', '12'], { env })
  t.equal(slower.code, 0, slower.stderr)
  t.equal(readFileSync(path.join(bin, 'xdotool.args'), 'utf8'), 'type --clearmodifiers --delay 12 --file -\n')
  const wrong = await user.run(['dictate', '--input', clip.file, '--type', '--type-delay', '1.5'], { env })
  t.equal(wrong.code, 2)
  t.match(wrong.stderr, '--type-delay must be a whole number of milliseconds from 0 to 1000, got "1.5".')
})

t.test('--type without any typing tool: exit 3 before recording, nothing stored', async (t) => {
  const user = setup(t, fixtureConfig())
  const emptyBin = tempDir(t)
  symlinkSync(process.execPath, path.join(emptyBin, 'node'))
  const env = { ...user.env, PATH: emptyBin }
  const result = await user.run(['dictate', '--input', path.join(audioFixturesDir, 'jfk.wav'), '--type'], {
    env,
  })
  t.equal(result.code, 3)
  t.match(result.stderr, '--type: no typing tool found')
  t.equal(result.stdout, '')
  const history = await user.run(['history', '--json'])
  t.equal(JSON.parse(history.stdout).count, 0)
})

t.test('silence: nothing recognised, exit 1, nothing stored; bad input and options', async (t) => {
  const user = setup(t, fixtureConfig())
  const silence = path.join(user.dir, 'silence.wav')
  writeFileSync(silence, encodeWav16(new Float32Array(2 * RATE)))
  const [quiet, missing, badSilence, conflict] = await Promise.all([
    user.run(['dictate', '--input', silence]),
    user.run(['dictate', '--input', path.join(user.dir, 'nope.wav')]),
    user.run(['dictate', '--silence', 'soon']),
    user.run(['dictate', '--input', silence, '--device', 'hw:0']),
  ])
  t.equal(quiet.code, 1)
  t.match(quiet.stderr, 'No speech was recognised; nothing was stored.')
  t.equal(missing.code, 1)
  t.match(missing.stderr, 'Audio file not found:')
  t.equal(badSilence.code, 2)
  t.match(badSilence.stderr, '--silence must be a number of seconds')
  t.equal(conflict.code, 2)
  const history = await user.run(['history', '--json'])
  t.equal(JSON.parse(history.stdout).count, 0)
})

t.test('AI enhancement runs as in POST /v1/dictate (rules provider)', async (t) => {
  const user = setup(t, {
    ...fixtureConfig({ text: 'um hello comma world period' }),
    ai: { provider: 'rules' },
  })
  const clip = await pausedClip(user.dir)
  const result = await user.run(['dictate', '--input', clip.file, '--json'])
  t.equal(result.code, 0, result.stderr)
  const entry = JSON.parse(result.stdout)
  t.equal(entry.rawText, 'um hello comma world period')
  t.equal(entry.finalText, 'Hello, world.')
  t.equal(entry.wasAIProcessed, true)
})
