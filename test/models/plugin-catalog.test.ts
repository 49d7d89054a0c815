/**
 * A third-party engine ships its own catalog model (issue 12: engines own their models). The fixture plugin
 * declares `fixture-tiny`, served here from 127.0.0.1: `GET /v1/models` lists it, `dictum models pull` installs
 * it, the engine finds it; `models.autoPull` pulls it for the first request. A broken plugin catalog is a boot
 * error naming the plugin, and an id two owners declare is refused.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { Writable } from 'node:stream'
import t, { type Test } from 'tap'
import { main } from '../../cli/index.ts'
import type { CatalogEntry } from '../../kernel/contracts/catalog.ts'
import { discoverPlugins } from '../../kernel/discovery.ts'
import { modelCatalog } from '../../models/catalog.ts'
import { build, FIXTURES, injectJson, tempDir } from '../helpers/build.ts'
import { audioFixturesDir } from '../helpers/wav.ts'
import { MODEL_FILES, makeTarBz2, sha256, startServer } from './fixtures.ts'

const CATALOG_ENGINE = path.join(FIXTURES, 'plugins/catalog-engine.ts')
const BAD_CATALOG_ENGINE = path.join(FIXTURES, 'plugins/bad-catalog-engine.ts')
const ARCHIVE_PATH = '/fixture-tiny.tar.bz2'

const server = await startServer()
t.teardown(() => server.close())
const archive = makeTarBz2(tempDir(t), 'fixture-tiny', MODEL_FILES)
server.files.set(ARCHIVE_PATH, { body: archive })
// Read by the fixture when it is first imported (the first discovery below).
process.env.DICTUM_FIXTURE_CATALOG = JSON.stringify({
  url: server.url(ARCHIVE_PATH),
  sizeBytes: archive.length,
  sha256: sha256(archive),
})

class Capture extends Writable {
  text = ''
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString('utf8')
    callback()
  }
}

async function app(t: Test, dataDir: string, autoPull = false) {
  return build(t, {
    dataDir,
    plugins: [CATALOG_ENGINE],
    speech: { engine: 'fixture-catalog' },
    models: { autoPull },
  })
}

const transcribe = (dictum: Awaited<ReturnType<typeof app>>) =>
  injectJson(dictum, 'POST', '/v1/transcribe', { path: path.join(audioFixturesDir, 'jfk.wav') })

const downloads = () => server.requests.filter((request) => request.url === ARCHIVE_PATH).length

t.test('the plugin model is listed, pulled by `dictum models pull` and found by its engine', async (t) => {
  const dataDir = tempDir(t)
  const dictum = await app(t, dataDir)

  const listed = await injectJson(dictum, 'GET', '/v1/models/fixture-tiny')
  t.equal(listed.status, 200)
  t.match(listed.body, {
    id: 'fixture-tiny',
    kind: 'model',
    engine: 'fixture-catalog',
    family: 'tiny-tokens',
    url: server.url(ARCHIVE_PATH),
    sha256: sha256(archive),
    installed: false,
    path: null,
  })
  const all = await injectJson(dictum, 'GET', '/v1/models')
  const ids = all.body.data.map((item: { id: string }) => item.id)
  t.ok(ids.includes('fixture-tiny') && ids.includes('parakeet-tdt-0.6b-v2') && ids.includes('silero-vad'))

  const before = await transcribe(dictum)
  t.equal(before.status, 503, 'not installed yet')
  t.equal(before.body.fix, 'dictum models pull fixture-tiny')

  const configFile = path.join(dataDir, 'config.json')
  writeFileSync(configFile, JSON.stringify({ plugins: [CATALOG_ENGINE] }))
  const stdout = new Capture()
  const stderr = new Capture()
  const args = ['models', 'pull', 'fixture-tiny', '--config', configFile, '--data-dir', dataDir]
  const code = await main(args, { stdout, stderr, isTTY: false, env: {}, cwd: dataDir })
  t.equal(code, 0, stderr.text)
  t.match(stderr.text, `Pulling fixture-tiny (Fixture Tiny (tokens only), `)
  t.equal(
    stdout.text,
    `Installed fixture-tiny at ${path.join(dataDir, 'models', 'fixture-tiny')} (checksum verified).\n`,
  )
  t.equal(downloads(), 1, 'downloaded from the URL the plugin declared')

  const installed = await injectJson(dictum, 'GET', '/v1/models/fixture-tiny')
  t.match(installed.body, { installed: true, path: 'models/fixture-tiny' })
  const after = await transcribe(dictum)
  t.equal(after.status, 200, JSON.stringify(after.body))
  t.equal(after.body.text, 'tokens 3', 'the engine read the installed model through its own entry')
})

t.test('with models.autoPull the manager pulls the plugin model for the first request', async (t) => {
  const already = downloads()
  const dictum = await app(t, tempDir(t), true)
  const first = await transcribe(dictum)
  t.equal(first.status, 200, JSON.stringify(first.body))
  t.equal(first.body.text, 'tokens 3')
  t.equal(downloads(), already + 1)
  t.ok(await dictum.dictum.models.isInstalled('fixture-tiny'))
})

t.test('a broken plugin catalog is a boot error naming the plugin and every problem', async (t) => {
  await t.rejects(discoverPlugins({ plugins: [BAD_CATALOG_ENGINE] }), {
    code: 'PLUGIN_INVALID',
    message:
      /bad-catalog-engine\.ts: bad-catalog: catalog: .*unsafe: url must be https.*unsafe: unsafe file path \.\.\/x.*not-mine: engine must be "bad-catalog", not "sherpa-onnx"/,
  })
})

t.test('a catalog id declared by two owners is refused, naming both', async (t) => {
  const discovery = await discoverPlugins({ plugins: [CATALOG_ENGINE] })
  const found = discovery.engines.get('fixture-catalog')
  if (!found?.definition.catalog) throw new Error('the fixture engine has no catalog')
  const [entry] = found.definition.catalog as CatalogEntry[]
  const copycat = (clash: string) => ({
    definition: {
      ...found.definition,
      id: 'copycat',
      catalog: [{ ...entry!, id: clash, engine: 'copycat' }],
    },
  })
  t.ok(modelCatalog(discovery.engines.values()).some((e) => e.id === 'fixture-tiny'))
  t.throws(() => modelCatalog([...discovery.engines.values(), copycat('fixture-tiny')]), {
    code: 'PLUGIN_INVALID',
    message: /engine "copycat" declares catalog model "fixture-tiny", which "fixture-catalog" declares too/,
  })
  t.throws(() => modelCatalog([...discovery.engines.values(), copycat('silero-vad')]), {
    message: /engine "copycat" declares catalog model "silero-vad", which "vad" declares too/,
  })
  t.throws(() => modelCatalog([...discovery.engines.values(), copycat('whisper-base.en')]), {
    message: /"whisper-base\.en", which "sherpa-onnx" declares too/,
  })
})
