/**
 * `dictum` as a process: Ctrl-C (SIGINT) ends a dictation and keeps what was said; the exit code scripts
 * see is the one the command returns.
 */
import t from 'tap'
import { pausedClip, samplesHeard } from '../cli/paused-clip.ts'
import { fixtureConfig, runCliProcess, setup, waitForStderr } from '../cli/run-cli.ts'

t.test(
  'the ffmpeg capture path (a synthetic live device) stops on Ctrl-C and keeps what was said',
  async (t) => {
    const user = setup(t, fixtureConfig())
    // jfk.wav first (16.8 s in all): Ctrl-C comes 1.5 s into it, with room to spare on a loaded machine.
    const clip = await pausedClip(user.dir, 'jfk.wav')
    const result = await user.runProcess(
      ['dictate', '--backend', 'lavfi', '--device', `amovie=${clip.file}`, '--verbose', '--silence', '20'],
      {
        started: (child, output) => {
          void waitForStderr(child, output.stderr, (text) => text.includes('Listening'))
            .then(() => new Promise((resolve) => setTimeout(resolve, 1500)))
            .then(() => child.kill('SIGINT'))
            .catch(() => {})
        },
      },
    )
    t.equal(result.code, 0, result.stderr)
    const heard = samplesHeard(result.stdout)
    t.ok(heard > 0 && heard < clip.totalSamples, `stopped early (${heard} samples)`)
    t.match(result.stderr, 'Transcribing')
  },
)

t.test('bin/dictum.js exits with the code the command returns', async (t) => {
  const [version, usage, unknown, invalid] = await Promise.all([
    runCliProcess(['--version']),
    runCliProcess([]),
    runCliProcess(['no-such-command']),
    setup(t, { speech: { engine: 42 } }).runProcess(['history']),
  ])
  t.equal(version.code, 0)
  t.match(version.stdout, /^\d+\.\d+\.\d+/)
  t.equal(usage.code, 2, 'no command: usage, exit 2')
  t.match(usage.stdout, /^Usage: dictum/)
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, 'unknown command "no-such-command"')
  t.equal(invalid.code, 1, 'an invalid config: exit 1')
  t.match(invalid.stderr, /Invalid configuration:[\s\S]*speech\.engine/)
})
