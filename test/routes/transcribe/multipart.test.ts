/**
 * A multipart form on /v1/transcribe and /v1/dictate (what `curl -F file=@note.wav` sends, as users of
 * whisper.cpp's server type first): the `file` part is transcribed, other fields count as JSON fields; a form
 * without a file says how to send it and names the OpenAI route. Real HTTP, real pocketsphinx.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { audioFixturesDir } from '../../helpers/fixtures.ts'
import { listen } from '../../helpers/http.ts'

const GO = readFileSync(path.join(audioFixturesDir, 'goforward.wav'))

function form(fields: Record<string, string>, file: Buffer | null = GO): FormData {
  const body = new FormData()
  if (file) body.append('file', new Blob([file], { type: 'audio/wav' }), 'goforward.wav')
  for (const [name, value] of Object.entries(fields)) body.append(name, value)
  return body
}

t.test('multipart on /v1/transcribe and /v1/dictate', async (t) => {
  const app = await build(t, { speech: { engine: 'pocketsphinx' } })
  const port = await listen(t, app)
  const base = `http://127.0.0.1:${port}/v1`

  const transcribed = await fetch(`${base}/transcribe`, { method: 'POST', body: form({ language: 'en' }) })
  t.equal(transcribed.status, 200)
  const result = (await transcribed.json()) as { text: string; sampleCount: number }
  t.equal(result.text, 'go forward ten meters')
  t.equal(result.sampleCount, 44580, '2.79 s at 16 kHz')

  const dictated = await fetch(`${base}/dictate`, {
    method: 'POST',
    body: form({ appName: 'Mail', windowTitle: 'Re: x' }),
  })
  t.equal(dictated.status, 200)
  const entry = (await dictated.json()) as { finalText: string; appName: string; windowTitle: string }
  t.same([entry.finalText, entry.appName, entry.windowTitle], ['go forward ten meters', 'Mail', 'Re: x'])

  const noFile = await fetch(`${base}/transcribe`, {
    method: 'POST',
    body: form({ model: 'whisper-1' }, null),
  })
  t.equal(noFile.status, 400)
  const error = (await noFile.json()) as { error: string; code: string }
  t.equal(error.code, 'INVALID_REQUEST')
  t.match(error.error, /no "file" part/)
  t.match(error.error, /\/v1\/audio\/transcriptions/, 'names the OpenAI route')

  const empty = await fetch(`${base}/transcribe`, { method: 'POST', body: form({}, Buffer.alloc(0)) })
  t.equal(empty.status, 400)
  t.equal(((await empty.json()) as { error: string }).error, 'Missing audio body.')
})
