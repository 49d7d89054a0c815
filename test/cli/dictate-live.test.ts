/**
 * `dictum dictate --live` as a user runs it: a file standing in for the microphone, read in real time, in
 * this process and through a running service's realtime WebSocket. Real speech through pocketsphinx: two
 * utterances separated by a pause come back as two utterances, each stored in history as it completed.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { AudioDecoder } from '../../audio/index.ts'
import { encodeWav16 } from '../../audio/wav-encode.ts'
import { freePort, serveInProcess } from '../helpers/serve.ts'
import { audioFixturesDir, cleanEnv, runCli, setup, tempDir } from './run-cli.ts'

const RATE = 16000

/** librispeech-1089-134686-0001.wav (3.3 s), 2 s of silence, goforward.wav, 1 s of silence: 9.1 s. */
async function pausedClip(dir: string): Promise<string> {
  const decoder = new AudioDecoder({ maxSeconds: 60 })
  try {
    const first = await decoder.decode({
      kind: 'file',
      path: path.join(audioFixturesDir, 'librispeech-1089-134686-0001.wav'),
    })
    const second = await decoder.decode({ kind: 'file', path: path.join(audioFixturesDir, 'goforward.wav') })
    const all = new Float32Array(first.length + 2 * RATE + second.length + RATE)
    all.set(first, 0)
    all.set(second, first.length + 2 * RATE)
    const file = path.join(dir, 'paused.wav')
    writeFileSync(file, encodeWav16(all))
    return file
  } finally {
    await decoder.close()
  }
}

interface LiveOutput {
  text: string
  utterances: { itemId: string; text: string }[]
}

function checkDictation(t: Test, output: LiveOutput): void {
  t.ok(output.utterances.length >= 2, `the pause ends an utterance (${output.utterances.length} utterances)`)
  t.match(output.text, /belly/, 'the words before the pause')
  t.match(output.text, /forward/, 'the words after it')
  t.equal(output.text, output.utterances.map((u) => u.text).join(' '), 'the text is the utterances in order')
  t.ok(output.text.indexOf('belly') < output.text.indexOf('forward'), 'in the order they were spoken')
}

t.test('--live --local: utterances as they end, each stored in history', async (t) => {
  const user = setup(t, { speech: { engine: 'pocketsphinx' } })
  const clip = await pausedClip(user.dir)
  const started = performance.now()
  const result = await user.run(['dictate', '--live', '--input', clip, '--app-name', 'Notes', '--json'])
  const seconds = (performance.now() - started) / 1000
  t.equal(result.code, 0, result.stderr)
  const output = JSON.parse(result.stdout) as LiveOutput
  checkDictation(t, output)
  t.ok(seconds > 8, `the file is read in real time (${seconds.toFixed(1)} s for 9.1 s of audio)`)

  const history = await user.run(['history', '--json'])
  t.equal(history.code, 0, history.stderr)
  const list = JSON.parse(history.stdout) as {
    count: number
    items: { finalText: string; appName: string }[]
  }
  t.equal(list.count, output.utterances.length, 'one history entry per utterance')
  t.same(
    list.items.map((item) => item.finalText).reverse(),
    output.utterances.map((u) => u.text),
    'the stored texts are the printed utterances (history lists newest first)',
  )
  t.ok(
    list.items.every((item) => item.appName === 'Notes'),
    'with the app name',
  )
})

t.test('--live through a running service: its realtime session and its history', async (t) => {
  const dir = tempDir(t)
  const { port } = await serveInProcess(t, { speech: { engine: 'pocketsphinx' }, log: { level: 'silent' } })
  const env = cleanEnv(dir, { DICTUM_SERVER: '' })
  const clip = await pausedClip(dir)
  const result = await runCli(
    [
      'dictate',
      '--live',
      '--input',
      clip,
      '--server',
      `http://127.0.0.1:${port}`,
      '--app-name',
      'Mail',
      '--json',
    ],
    { env },
  )
  t.equal(result.code, 0, result.stderr)
  const output = JSON.parse(result.stdout) as LiveOutput
  checkDictation(t, output)
  const history = (await (await fetch(`http://127.0.0.1:${port}/v1/history`)).json()) as {
    items: { finalText: string; appName: string }[]
  }
  t.same(
    history.items.map((item) => item.finalText).reverse(),
    output.utterances.map((u) => u.text),
    "the service's history has each utterance",
  )
  t.ok(
    history.items.every((item) => item.appName === 'Mail'),
    'with the app name given',
  )
})

t.test('--live usage: --input that does not exist, a service that is not there', async (t) => {
  const user = setup(t, { speech: { engine: 'pocketsphinx' } })
  const missing = await user.run(['dictate', '--live', '--input', path.join(user.dir, 'nope.wav')])
  t.not(missing.code, 0)
  t.match(missing.stderr, /nope\.wav|not found|no such file/i)
  const port = await freePort()
  const gone = await runCli(
    [
      'dictate',
      '--live',
      '--input',
      path.join(audioFixturesDir, 'jfk.wav'),
      '--server',
      `http://127.0.0.1:${port}`,
    ],
    { env: user.env },
  )
  t.equal(gone.code, 3, gone.stderr)
})
