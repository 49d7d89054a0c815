/**
 * The data directory's path never reaches an HTTP client (issue 16 item 17): it names the user's home and
 * layout. Engine reasons, errors of transcriptions with missing models and the model list name the model and
 * the fix instead (`models/<id>` where a place is meant). Real app on a temp data dir, every built-in engine
 * selected in turn with its model missing, real engine probes and hosts.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { build, injectJson, tempDir } from '../helpers/build.ts'
import { audioFixturesDir } from '../helpers/wav.ts'

const JFK = path.join(audioFixturesDir, 'jfk.wav')

const setups: Array<[string, Record<string, unknown>]> = [
  ['sherpa-onnx', { model: 'parakeet-tdt-0.6b-v2' }],
  ['vosk', {}],
  // A pocketsphinx model folder inside the models directory (relative modelDir), without its files.
  ['pocketsphinx', { modelDir: 'my-sphinx' }],
]

for (const [engine, options] of setups) {
  t.test(`${engine} with its model missing: no response names the data dir`, async (t) => {
    const dataDir = tempDir(t, 'dictum-secret-home-')
    mkdirSync(path.join(dataDir, 'models', 'my-sphinx'), { recursive: true })
    const app = await build(t, {
      dataDir,
      vad: { enabled: false },
      speech: { engine, engines: { [engine]: options } },
    })
    const bodies: string[] = []
    const call = async (method: string, url: string, payload?: unknown) => {
      const res = await injectJson(app, method, url, payload)
      bodies.push(JSON.stringify(res.body))
      return res
    }

    const engines = await call('GET', '/v1/engines')
    const item = engines.body.items.find((e: { id: string }) => e.id === engine)
    t.equal(item.status, 'unavailable')
    t.ok(item.fix, 'a fix is given')
    const transcribed = await call('POST', '/v1/transcribe', { path: JFK })
    t.equal(transcribed.status, 503)
    t.equal(transcribed.body.code, 'ENGINE_UNAVAILABLE')
    t.equal(transcribed.body.fix, item.fix, 'the same fix')
    await call('GET', '/v1/models')
    await call('GET', `/v1/models/${engine}`)
    for (const body of bodies) t.notOk(body.includes(dataDir), `no data dir in ${body.slice(0, 300)}`)
    t.comment(item.reason)
    t.end()
  })
}

t.test('the reasons name the model and the fix', async (t) => {
  const dataDir = tempDir(t, 'dictum-secret-home-')
  mkdirSync(path.join(dataDir, 'models', 'my-sphinx'), { recursive: true })
  const app = await build(t, {
    dataDir,
    speech: {
      engines: {
        'sherpa-onnx': { model: 'parakeet-tdt-0.6b-v2' },
        vosk: { model: 'vosk-model-small-en-us-0.15' },
        pocketsphinx: { modelDir: 'my-sphinx' },
      },
    },
  })
  const { items } = (await injectJson(app, 'GET', '/v1/engines')).body
  const byId = (id: string) => items.find((e: { id: string }) => e.id === id)
  t.match(byId('sherpa-onnx'), {
    reason: 'parakeet-tdt-0.6b-v2 is not installed',
    fix: 'dictum models pull parakeet-tdt-0.6b-v2',
  })
  t.match(byId('vosk'), {
    reason: /^vosk-model-small-en-us-0\.15 is not installed/,
    fix: 'dictum models pull vosk-model-small-en-us-0.15',
  })
  t.match(byId('pocketsphinx'), { reason: /acoustic model folder models\/my-sphinx\/en-us has no mdef/ })
})

t.test('an installed model is listed with its place in the data dir, not the absolute path', async (t) => {
  const dataDir = tempDir(t, 'dictum-secret-home-')
  const app = await build(t, { dataDir })
  // Installed as `dictum models pull` leaves it: the folder with its manifest.
  const folder = path.join(dataDir, 'models', 'silero-vad')
  mkdirSync(folder, { recursive: true })
  writeFileSync(path.join(folder, 'silero_vad.onnx'), Buffer.alloc(64, 1))
  const { body } = await injectJson(app, 'GET', '/v1/models/silero-vad')
  const text = JSON.stringify(body)
  t.equal(body.installed, true)
  t.equal(body.path, 'models/silero-vad')
  t.notOk(text.includes(dataDir), text)
  const cli = (await app.dictum.models.list()).find((item) => item.entry.id === 'silero-vad')
  t.equal(cli?.path, folder, 'the CLI listing (dictum models list) keeps the absolute path')
})
