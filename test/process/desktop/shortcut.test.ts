/**
 * `dictum dictate --begin/--end` as key bindings run them, without a display: one recording per user under
 * $XDG_RUNTIME_DIR, a lock left by a killed recorder does not block the next one, `--end` with nothing
 * recording says so, and `--notify` sends listening / transcribing / done through notify-send (a stand-in
 * on PATH that logs its arguments). The fake microphone is ffmpeg's lavfi reading a clip in real time.
 */
import type { ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import {
  audioFixturesDir,
  type CliResult,
  fixtureConfig,
  type ProcessRunOptions,
  setup,
  tempDir,
  waitForStderr,
} from '../../cli/run-cli.ts'

const GO = path.join(audioFixturesDir, 'goforward.wav')
const MICROPHONE = ['--backend', 'lavfi', '--device', `amovie=${GO}`]

function user(t: Test) {
  const cli = setup(t, fixtureConfig({ text: 'hello from the shortcut' }))
  const runtime = tempDir(t, 'dictum-runtime-')
  const env: NodeJS.ProcessEnv = { ...cli.env, XDG_RUNTIME_DIR: runtime }
  return { cli, runtime, env }
}

/** Runs a held recording; resolves with the child (killed at the end if it runs) once the clip is recorded. */
async function held(
  t: Test,
  run: (args: string[], options?: ProcessRunOptions) => Promise<CliResult>,
  env: NodeJS.ProcessEnv,
  extra: string[] = [],
) {
  let child: ChildProcess | undefined
  let stderr = () => ''
  const result = run(['dictate', '--begin', '-v', ...extra, ...MICROPHONE], {
    env,
    started: (c, output) => {
      child = c
      stderr = output.stderr
    },
  })
  t.teardown(() => {
    if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  await waitForStderr(child as ChildProcess, stderr, (text) =>
    text.includes('waiting for dictum dictate --end'),
  )
  return { child: child as ChildProcess, result }
}

t.test('a lock left by a killed recorder does not block the next --begin', async (t) => {
  const { cli, runtime, env } = user(t)
  const first = await held(t, cli.runProcess, env)
  const lock = path.join(runtime, 'dictum', 'dictate.lock')
  t.ok(existsSync(lock), 'the recorder holds a lock under $XDG_RUNTIME_DIR/dictum')
  first.child.kill('SIGKILL')
  const killed = await first.result
  t.equal(killed.signal, 'SIGKILL')
  t.ok(existsSync(lock), 'the killed recorder left its lock behind')
  const second = await held(t, cli.runProcess, env)
  const ended = await cli.runProcess(['dictate', '--end'], { env })
  t.equal(ended.code, 0, ended.stderr)
  t.equal(ended.stdout, 'hello from the shortcut\n', '--end prints the text')
  t.equal((await second.result).code, 0)
  t.notOk(existsSync(lock), 'the lock is freed')
})

t.test('--end with nothing recording, and --begin with --end, are clear errors', async (t) => {
  const { cli, env } = user(t)
  const ended = await cli.runProcess(['dictate', '--end'], { env })
  t.equal(ended.code, 1)
  t.match(ended.stderr, /no dictation is recording/)
  const both = await cli.runProcess(['dictate', '--begin', '--end'], { env })
  t.equal(both.code, 2)
  t.match(both.stderr, /contradict/)
})

t.test('--end reports the recording failure with its exit status', async (t) => {
  const { cli, env } = user(t)
  // No typing tool and no display: the recorder fails before recording, and --end must not hang.
  const recorder = await cli.runProcess(['dictate', '--begin', '--type', ...MICROPHONE], {
    env: { ...env, PATH: '/nonexistent', DISPLAY: '' },
  })
  t.equal(recorder.code, 3, recorder.stderr)
  t.match(recorder.stderr, /no typing tool found/)
  const ended = await cli.runProcess(['dictate', '--end'], { env })
  t.match(ended.stderr, /no dictation is recording/, 'the failed recorder freed the lock')
})

t.test('--notify: listening, transcribing, done with the text, through notify-send', async (t) => {
  const { cli, env } = user(t)
  const bin = tempDir(t, 'dictum-bin-')
  const log = path.join(bin, 'notify.log')
  const fake = path.join(bin, 'notify-send')
  writeFileSync(fake, `#!/bin/sh\nprintf '%s|' "$@" >> '${log}'\necho >> '${log}'\n`)
  chmodSync(fake, 0o755)
  const notifyEnv = { ...env, PATH: `${bin}:${env.PATH}` }
  const recording = await held(t, cli.runProcess, notifyEnv, ['--notify'])
  const ended = await cli.runProcess(['dictate', '--end'], { env: notifyEnv })
  t.equal(ended.code, 0, ended.stderr)
  t.equal((await recording.result).code, 0)
  const lines = readFileSync(log, 'utf8').trim().split('\n')
  t.match(lines[0], /dictum: listening/)
  t.match(lines[1], /dictum: transcribing/)
  t.match(lines[2], /dictum: done\|hello from the shortcut\|/)
  t.equal(lines.length, 3)
})
