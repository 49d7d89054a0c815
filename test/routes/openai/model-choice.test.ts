/**
 * What `model` selects on POST /v1/audio/transcriptions (it used to be ignored: a catalog model that is not
 * installed, or the VAD, was transcribed by the selected engine without a word), and a language the engine
 * cannot do (it used to give a silent English transcript). Real engines: the fixture engine selected,
 * pocketsphinx, and a sherpa-onnx fixture model installed under its catalog id.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { fixtureModels, fixtureModelsDir } from '../../engines/sherpa-onnx/fixtures.ts'
import { build, tempDir } from '../../helpers/build.ts'
import { audioFixturesDir } from '../../helpers/fixtures.ts'

const GO = readFileSync(path.join(audioFixturesDir, 'goforward.wav'))
type App = Awaited<ReturnType<typeof build>>

async function transcribe(app: App, fields: Record<string, string>) {
  const body = new FormData()
  body.append('file', new Blob([GO], { type: 'audio/wav' }), 'goforward.wav')
  for (const [name, value] of Object.entries(fields)) body.append(name, value)
  const request = new Request('http://localhost/v1/audio/transcriptions', { method: 'POST', body })
  const response = await app.inject({
    method: 'POST',
    url: '/v1/audio/transcriptions',
    headers: Object.fromEntries(request.headers),
    payload: Buffer.from(await request.arrayBuffer()),
  })
  return { status: response.statusCode, json: response.json() }
}

t.test('model: OpenAI names, engine ids, catalog models, errors naming what exists', async (t) => {
  const app = await build(t)
  const selected = await transcribe(app, { model: 'whisper-1' })
  t.equal(selected.status, 200)
  t.match(selected.json.text, /^heard \d+ samples$/, "OpenAI's name: the selected engine (fixture-echo)")
  t.equal((await transcribe(app, { model: 'gpt-4o-transcribe' })).json.text, selected.json.text)

  const engine = await transcribe(app, { model: 'pocketsphinx' })
  t.equal(engine.status, 200)
  t.equal(engine.json.text, 'go forward ten meters', 'an engine id: that engine')

  const missing = await transcribe(app, { model: 'parakeet-tdt-0.6b-v2' })
  t.equal(missing.status, 404, 'a catalog model that is not installed')
  t.equal(missing.json.error.param, 'model')
  t.match(missing.json.error.message, /not installed \(run: dictum models pull parakeet-tdt-0\.6b-v2\)/)
  t.match(
    missing.json.error.message,
    /Available models: gpt-transcribe, .*whisper-1, .*pocketsphinx.*fixture-echo/,
  )

  const vad = await transcribe(app, { model: 'silero-vad' })
  t.equal(vad.status, 400, 'the VAD is not a speech model')
  t.match(vad.json.error.message, /silero-vad is not a speech model/)

  const unknown = await transcribe(app, { model: 'no-such-model' })
  t.equal(unknown.status, 404)
  t.match(unknown.json.error.message, /no-such-model.*Available models:/)
})

t.test('a language the engine cannot transcribe is a 400, on both routes', async (t) => {
  const app = await build(t, { speech: { engine: 'pocketsphinx' } })
  const french = await transcribe(app, { model: 'whisper-1', language: 'fr' })
  t.equal(french.status, 400)
  t.equal(french.json.error.param, 'language')
  t.match(
    french.json.error.message,
    /language "fr" is not one PocketSphinx \(en-US\) transcribes \(it does: en\)/,
  )
  t.equal((await transcribe(app, { model: 'whisper-1', language: 'en' })).status, 200, 'English is fine')
  const native = await app.inject({
    method: 'POST',
    url: '/v1/transcribe',
    payload: { audioBase64: GO.toString('base64'), language: 'de' },
  })
  t.equal(native.statusCode, 400)
  t.equal(native.json().code, 'INVALID_REQUEST')
})

t.test('an installed catalog model is loaded for the request, beside the configured one', async (t) => {
  const fixtures = await fixtureModels()
  if ('skip' in fixtures) return t.pass('skipped', { skip: fixtures.skip })
  const dataDir = tempDir(t)
  mkdirSync(path.join(dataDir, 'models'))
  await fixtureModelsDir(fixtures.dir, path.join(dataDir, 'models'))
  const app = await build(t, {
    dataDir,
    speech: { engine: 'fixture-echo', engines: { 'sherpa-onnx': { model: 'zipformer-small-en' } } },
  })
  const chosen = await transcribe(app, { model: 'parakeet-tdt-0.6b-v2', response_format: 'verbose_json' })
  t.equal(chosen.status, 200, JSON.stringify(chosen.json))
  t.type(chosen.json.text, 'string', 'the fixture transducer answered (random weights: any text)')
  t.notMatch(chosen.json.text, /^heard/, 'not the selected engine')
  const engines = (await app.inject({ method: 'GET', url: '/v1/engines' })).json()
  t.equal(engines.active, 'fixture-echo', 'the selected engine is unchanged')
})
