/** config `models.autoPull`: the selected engine's catalog model is downloaded on first use. */
import path from 'node:path'
import { asValue } from 'awilix/browser'
import t, { type Test } from 'tap'
import type { CatalogEntry } from '../../kernel/contracts/catalog.ts'
import { ModelManager } from '../../models/manager.ts'
import { build, FIXTURES, tempDir } from '../helpers/build.ts'
import { audioFixturesDir } from '../helpers/wav.ts'
import { MODEL_FILES, makeTarBz2, sha256, startServer } from '../models/fixtures.ts'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }

async function setup(t: Test, autoPull: boolean) {
  const server = await startServer()
  t.teardown(() => server.close())
  const archive = makeTarBz2(tempDir(t), 'test-model', MODEL_FILES)
  server.files.set('/test-model.tar.bz2', { body: archive })
  const entry: CatalogEntry = {
    id: 'test-model',
    family: 'nemo-transducer',
    displayName: 'Test model',
    languages: ['en'],
    url: server.url('/test-model.tar.bz2'),
    archive: 'tar.bz2',
    sizeBytes: archive.length,
    sizeExact: true,
    sha256: sha256(archive),
    checksumSource: 'built by the test',
    files: Object.keys(MODEL_FILES),
    customWords: false,
    engine: 'sherpa-onnx',
    license: 'test',
  }
  const dataDir = tempDir(t)
  const models = new ModelManager({
    modelsDir: path.join(dataDir, 'models'),
    logger: quiet,
    catalog: [entry],
  })
  const app = await build(
    t,
    {
      dataDir,
      plugins: [path.join(FIXTURES, 'plugins/model-engine.ts')],
      speech: { engine: 'fixture-model' },
      models: { autoPull },
    },
    { services: { models: asValue(models) } },
  )
  return { app, server }
}

const transcribe = (app: Awaited<ReturnType<typeof build>>) =>
  app.inject({
    method: 'POST',
    url: '/v1/transcribe',
    payload: { path: path.join(audioFixturesDir, 'jfk.wav') },
  })

t.test('without autoPull: 503 naming the pull command, nothing downloaded', async (t) => {
  const { app, server } = await setup(t, false)
  const res = await transcribe(app)
  t.equal(res.statusCode, 503)
  t.match(res.json().error, /model test-model is not installed\. Fix: dictum models pull test-model/)
  t.equal(res.json().fix, 'dictum models pull test-model')
  t.equal(server.requests.length, 0)
})

t.test('with autoPull: the first request pulls the model and succeeds; the next ones reuse it', async (t) => {
  const { app, server } = await setup(t, true)
  const [a, b] = await Promise.all([transcribe(app), transcribe(app)])
  t.equal(a.statusCode, 200)
  t.equal(b.statusCode, 200)
  t.equal(a.json().text, 'tokens 3')
  t.equal(server.requests.length, 1, 'parallel first requests share one download')
  t.equal((await transcribe(app)).statusCode, 200)
  t.equal(server.requests.length, 1)
  t.ok(await app.dictum.models.isInstalled('test-model'))
})
