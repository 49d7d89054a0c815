/**
 * Dictation at a real X desktop: Xvfb, an xterm running `cat > file` as the focused window, xdotool typing,
 * and the fake microphone (`--backend lavfi`, ffmpeg reading a clip in real time). `--toggle` twice and
 * `--begin` / `--end` put the transcript of the clip (pocketsphinx) into the window; `--live --type` leaves
 * exactly the final text there, also when the final revised words already typed and when a spoken
 * "scratch that" takes an utterance back (a scripted engine fixture says the words).
 */
import type { ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { AudioDecoder } from '../../../audio/index.ts'
import { encodeWav16 } from '../../../audio/wav-encode.ts'
import {
  audioFixturesDir,
  type CliResult,
  repoRoot,
  setup,
  tempDir,
  waitForStderr,
} from '../../cli/run-cli.ts'
import { focusedTerminal, missingTool, startX, type Window } from './x-session.ts'

const missing = missingTool()
if (missing !== null)
  t.plan(0, `${missing} is not installed (scripts/setup.sh installs xvfb, xdotool, xterm)`)

const STREAMING = path.join(repoRoot, 'test/fixtures/plugins/streaming-engine.ts')
const GO = path.join(audioFixturesDir, 'goforward.wav')

/** The fake microphone: ffmpeg's lavfi reading `file` in real time. */
const microphone = (file: string) => ['--backend', 'lavfi', '--device', `amovie=${file}`]

/** goforward.wav `times` times, each followed by 2 s of silence: one utterance each. */
async function repeatedClip(dir: string, times: number): Promise<string> {
  const decoder = new AudioDecoder({ maxSeconds: 60 })
  try {
    const go = await decoder.decode({ kind: 'file', path: GO })
    const gap = 2 * 16000
    const all = new Float32Array(times * (go.length + gap))
    for (let i = 0; i < times; i++) all.set(go, i * (go.length + gap))
    const file = path.join(dir, `go-${times}.wav`)
    writeFileSync(file, encodeWav16(all))
    return file
  } finally {
    await decoder.close()
  }
}

async function desktop(t: Test, config: Record<string, unknown>) {
  const user = setup(t, config)
  const display = await startX(t)
  const window: Window = await focusedTerminal(t, display, user.dir)
  const env: NodeJS.ProcessEnv = {
    ...user.env,
    DISPLAY: display,
    XDG_RUNTIME_DIR: tempDir(t, 'dictum-runtime-'),
  }
  delete env.WAYLAND_DISPLAY
  return { user, window, env }
}

/** Starts a held recording (`--toggle` or `--begin`) and resolves once the clip is recorded. */
async function startHeld(
  t: Test,
  run: (args: string[], options: object) => Promise<CliResult>,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ result: Promise<CliResult> }> {
  let child: ChildProcess | undefined
  let stderr = () => ''
  const result = run([...args, '-v', ...microphone(GO)], {
    env,
    started: (c: ChildProcess, output: { stderr: () => string }) => {
      child = c
      stderr = output.stderr
    },
  })
  t.teardown(() => {
    if (child?.exitCode === null) child.kill('SIGKILL')
  })
  await waitForStderr(child as ChildProcess, stderr, (text) =>
    text.includes('waiting for dictum dictate --end'),
  )
  // Wrapped: an async function returning the promise itself would wait for the recorder to exit.
  return { result }
}

t.test('--toggle twice types the transcript of the clip into the focused window', async (t) => {
  const { user, window, env } = await desktop(t, { speech: { engine: 'pocketsphinx' } })
  const { result: recording } = await startHeld(t, user.runProcess, ['dictate', '--toggle', '--type'], env)
  const stopped = await user.runProcess(['dictate', '--toggle'], { env })
  const recorded = await recording
  t.equal(recorded.code, 0, recorded.stderr)
  t.equal(stopped.code, 0, stopped.stderr)
  const text = stopped.stdout.trim()
  t.match(text, /forward/, 'the second --toggle prints the text')
  t.equal(await window.readLine(), text, 'the window holds exactly that text')
})

t.test('--begin / --end types the transcript; a second --begin says who records', async (t) => {
  const { user, window, env } = await desktop(t, { speech: { engine: 'pocketsphinx' } })
  const { result: recording } = await startHeld(t, user.runProcess, ['dictate', '--begin', '--type'], env)
  const second = await user.runProcess(['dictate', '--begin', ...microphone(GO)], { env })
  t.equal(second.code, 3, 'refused: unavailable')
  t.match(second.stderr, /already recording: pid \d+, since .*--end/, second.stderr)
  const ended = await user.runProcess(['dictate', '--end'], { env })
  t.equal(ended.code, 0, ended.stderr)
  t.equal((await recording).code, 0)
  t.match(ended.stdout, /forward/)
  t.equal(await window.readLine(), ended.stdout.trim())
})

t.test('--live --type leaves exactly the final text when the final revised typed words', async (t) => {
  const { user, window, env } = await desktop(t, {
    plugins: [STREAMING],
    speech: {
      engine: 'fixture-streaming-inline',
      engines: { 'fixture-streaming-inline': { finalFirstWord: 'zulu' } },
    },
  })
  const result = await user.runProcess(['dictate', '--live', '--type', '-v', ...microphone(GO)], { env })
  t.equal(result.code, 0, result.stderr)
  t.match(result.stderr, /Corrected the window: \d+ characters taken back/, 'typed words were taken back')
  const text = result.stdout.trim()
  t.match(text, /^zulu bravo/, 'the final says "zulu" where the deltas typed "alpha"')
  t.equal(await window.readLine(), text)
})

t.test('--live --type: a spoken "scratch that" removes the previous utterance from the window', async (t) => {
  const { user, window, env } = await desktop(t, {
    plugins: [STREAMING],
    speech: {
      engine: 'fixture-streaming-inline',
      engines: { 'fixture-streaming-inline': { items: ['keep these words', 'drop this', 'scratch that'] } },
    },
  })
  const clip = await repeatedClip(user.dir, 3)
  const result = await user.runProcess(
    ['dictate', '--live', '--type', '--silence', '1', ...microphone(clip)],
    {
      env,
    },
  )
  t.equal(result.code, 0, result.stderr)
  t.equal(result.stdout.trim(), 'keep these words')
  t.equal(await window.readLine(), 'keep these words', 'typed "drop this" was erased')
})
