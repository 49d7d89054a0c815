/**
 * `dictum dictate --live` through a service (cli/live-link.ts) against a scripted realtime server: the order
 * of events a busy machine gives. The service is still catching up with audio sent earlier when the CLI
 * commits at the end of its input, so the VAD's commit of an earlier utterance arrives after that commit
 * was sent, before the commit's own answer. The CLI must wait for the answer, not take the first
 * `committed` for it (found on CI under two busy loops: the last utterance of a dictation was lost).
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import t, { type Test } from 'tap'
import { WebSocketServer } from 'ws'
import { openAudioInput } from '../../audio/audio-input.ts'
import { parseWavHeader } from '../../audio/wav-header.ts'
import { realtimeLink } from '../../cli/live-link.ts'
import { ServerClient } from '../../cli/server-client.ts'
import { audioFixturesDir, cleanEnv, runCli, tempDir } from './run-cli.ts'

/**
 * A realtime endpoint that answers the client's commit with `script`'s events, in order, and records the
 * audio appended (`appended`); it answers `GET /v1/health` as dictum does, for the command line.
 */
async function scriptedServer(t: Test, script: object[], appended: Buffer[] = []) {
  const http = createServer((request, response) => {
    if (request.url !== '/v1/health') return void response.writeHead(404).end()
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ status: 'ok', version: 'scripted' }))
  })
  const wss = new WebSocketServer({ server: http })
  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      const event = JSON.parse(String(data)) as { type: string; audio?: string }
      if (event.type === 'input_audio_buffer.append') appended.push(Buffer.from(event.audio ?? '', 'base64'))
      if (event.type !== 'input_audio_buffer.commit') return
      // one event per turn of the event loop, as a service sends them over time
      let i = 0
      const next = () => {
        const answer = script[i++]
        if (!answer) return
        socket.send(JSON.stringify(answer))
        setImmediate(next)
      }
      next()
    })
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate()
        wss.close()
        http.close(() => resolve())
      }),
  )
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`
}

/** A live dictation of 0.1 s of audio through the link to `url`: the utterances' texts once finish resolves. */
async function dictateTo(url: string): Promise<string[]> {
  const texts: string[] = []
  const link = await realtimeLink(
    new ServerClient(url, null),
    { silenceMs: 1000, appName: 'test' },
    { delta() {}, completed: (_id, text) => texts.push(text), failed() {} },
  )
  link.append(new Uint8Array(3200))
  await link.finish()
  return texts
}

const completed = (itemId: string, transcript: string) => ({
  type: 'conversation.item.input_audio_transcription.completed',
  item_id: itemId,
  transcript,
})

t.test(
  'the VAD commits an earlier utterance after the final commit: the last one is still waited for',
  async (t) => {
    const url = await scriptedServer(t, [
      // the VAD, catching up: the first utterance ends (speech_stopped, then its commit) and completes
      { type: 'input_audio_buffer.speech_started', item_id: 'item_1' },
      { type: 'input_audio_buffer.speech_stopped', item_id: 'item_1' },
      { type: 'input_audio_buffer.committed', item_id: 'item_1' },
      completed('item_1', 'stuff it into his belly'),
      // the second utterance starts; the client's commit ends it (no speech_stopped), then it completes
      { type: 'input_audio_buffer.speech_started', item_id: 'item_2' },
      { type: 'input_audio_buffer.committed', item_id: 'item_2' },
      completed('item_2', 'go forward ten meters'),
    ])
    const texts = await dictateTo(url)
    t.same(texts, ['stuff it into his belly', 'go forward ten meters'], 'both utterances, in order')
  },
)

t.test(
  'nothing left to commit (the VAD committed everything): finish ends once the items complete',
  async (t) => {
    const url = await scriptedServer(t, [
      { type: 'input_audio_buffer.speech_stopped', item_id: 'item_1' },
      { type: 'input_audio_buffer.committed', item_id: 'item_1' },
      {
        type: 'error',
        error: { type: 'invalid_request_error', code: 'input_audio_buffer_commit_empty', message: 'empty' },
      },
      completed('item_1', 'go forward ten meters'),
    ])
    const texts = await dictateTo(url)
    t.same(texts, ['go forward ten meters'])
  },
)

t.test('dictum dictate --live sends the 16-bit samples of a 16 kHz WAV file unchanged', async (t) => {
  const appended: Buffer[] = []
  const url = await scriptedServer(
    t,
    [{ type: 'input_audio_buffer.committed', item_id: 'item_1' }, completed('item_1', 'go forward')],
    appended,
  )
  const dir = tempDir(t)
  const clip = path.join(audioFixturesDir, 'goforward.wav')
  const args = ['dictate', '--live', '--input', clip, '--server', url, '--json']
  const result = await runCli(args, { env: cleanEnv(dir), cwd: dir })
  t.equal(result.code, 0, result.stderr)
  t.equal(JSON.parse(result.stdout).text, 'go forward')
  // goforward.wav is 16 kHz mono 16-bit: its data chunk is what the session must receive, bit for bit.
  const sent = Buffer.concat(appended)
  const expected = await wavData(readFileSync(clip))
  t.equal(sent.length, expected.length, `every sample sent (${expected.length / 2})`)
  t.ok(sent.equals(expected), 'the same bytes')
  t.ok(
    appended.slice(0, -1).every((chunk) => chunk.length === 3200),
    'in 100 ms chunks (the last may be shorter)',
  )
})

/** The bytes of a WAV file's audio frames, where dictum's own header parser finds them. */
async function wavData(file: Buffer): Promise<Buffer> {
  const input = await openAudioInput({ kind: 'bytes', data: file, filename: 'clip.wav' })
  try {
    const header = await parseWavHeader(input)
    if (header.kind !== 'pcm') throw new Error('not a PCM WAV file')
    const { dataOffset, frames, blockAlign } = header.layout
    return file.subarray(dataOffset, dataOffset + frames * blockAlign)
  } finally {
    await input.close()
  }
}
