import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { isDictumError } from '../../errors/catalogue.ts'
import type { CatalogEntry } from '../../kernel/contracts/catalog.ts'
import { type InstallManifest, installModel, MANIFEST_FILE } from '../../models/install.ts'
import { hasCommand, MODEL_FILES, makeTarBz2, makeZip, rawTarBz2, rawZip, sha256 } from './fixtures.ts'

function entry(overrides: Partial<CatalogEntry> = {}): CatalogEntry {
  return {
    id: 'test-model',
    family: 'nemo-transducer',
    displayName: 'Test model',
    languages: ['en'],
    url: 'https://github.com/example/test-model.tar.bz2',
    archive: 'tar.bz2',
    sizeBytes: 1,
    sizeExact: true,
    sha256: null,
    checksumSource: 'test',
    files: Object.keys(MODEL_FILES),
    customWords: false,
    engine: 'sherpa-onnx',
    license: 'test',
    hints: { modelType: 'nemo_transducer', featureDim: 80, tokens: 'tokens.txt' },
    ...overrides,
  }
}

async function install(dir: string, archive: Buffer, catalogEntry: CatalogEntry): Promise<string> {
  const archivePath = path.join(dir, `archive.${catalogEntry.archive}`)
  writeFileSync(archivePath, archive)
  return installModel({
    entry: catalogEntry,
    archivePath,
    modelsDir: path.join(dir, 'models'),
    archive: { sha256: sha256(archive), sha256Verified: false, source: 'file', sizeBytes: archive.length },
  })
}

/** Nothing installed and nothing left in staging. */
function assertNothingInstalled(
  t: Pick<typeof import('tap').default, 'notOk' | 'same'>,
  dir: string,
  id = 'test-model',
) {
  t.notOk(existsSync(path.join(dir, 'models', id)), 'no model folder')
  const staging = path.join(dir, 'models', '.staging')
  t.same(existsSync(staging) ? readdirSync(staging) : [], [], 'staging is empty')
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  )
  if (!(error instanceof Error)) throw new Error('expected a rejection')
  return error
}

t.test('a tar.bz2 with one top folder is unpacked without it, checked and moved into place', async (t) => {
  const dir = t.testdir()
  const archive = makeTarBz2(dir, 'sherpa-onnx-test-model', { ...MODEL_FILES, 'test_wavs/0.wav': 'RIFF' })
  const target = await install(dir, archive, entry())
  t.equal(target, path.join(dir, 'models', 'test-model'))
  for (const [name, content] of Object.entries(MODEL_FILES)) {
    t.equal(readFileSync(path.join(target, name), 'utf8'), content, `${name} at the model root`)
  }
  t.ok(existsSync(path.join(target, 'test_wavs', '0.wav')), 'sub-folders are kept')
  const manifest = JSON.parse(readFileSync(path.join(target, MANIFEST_FILE), 'utf8')) as InstallManifest
  t.equal(manifest.sha256, sha256(archive))
  t.equal(manifest.files['tokens.txt'], Buffer.byteLength(MODEL_FILES['tokens.txt'] ?? ''))
  t.same(readdirSync(path.join(dir, 'models', '.staging')), [], 'staging cleaned')
})

t.test('an archive without a top folder is installed as it is', async (t) => {
  const dir = t.testdir()
  const target = await install(dir, makeTarBz2(dir, null, MODEL_FILES), entry())
  t.ok(existsSync(path.join(target, 'encoder.onnx')))
})

t.test('a missing expected file installs nothing', async (t) => {
  const dir = t.testdir()
  const { 'decoder.onnx': _dropped, ...partial } = MODEL_FILES
  const error = await rejection(install(dir, makeTarBz2(dir, 'top', partial), entry()))
  t.ok(isDictumError(error) && error.code === 'MODEL_INVALID')
  t.match(error.message, /decoder\.onnx is missing/)
  assertNothingInstalled(t, dir)
})

t.test('a file of the wrong size (catalog fileChecks) installs nothing', async (t) => {
  const dir = t.testdir()
  const error = await rejection(
    install(
      dir,
      makeTarBz2(dir, 'top', MODEL_FILES),
      entry({ fileChecks: { 'tokens.txt': { sizeBytes: 1 } } }),
    ),
  )
  t.match(error.message, /tokens\.txt has \d+ bytes, expected 1/)
  assertNothingInstalled(t, dir)
})

t.test('a tar entry with ../ is refused and nothing is written outside', async (t) => {
  const dir = t.testdir()
  const archive = rawTarBz2(dir, [
    { name: 'top/tokens.txt', data: 'x' },
    { name: 'top/../../../escaped.txt', data: 'evil' },
  ])
  const error = await rejection(install(dir, archive, entry()))
  t.ok(isDictumError(error) && error.code === 'MODEL_INVALID')
  t.match(error.message, /outside its folder|absolute path or '\.\.'/)
  t.notOk(existsSync(path.join(dir, 'models', 'escaped.txt')))
  t.notOk(existsSync(path.join(dir, 'escaped.txt')))
  assertNothingInstalled(t, dir)
})

t.test('a tar entry with an absolute path is refused', async (t) => {
  const dir = t.testdir()
  const outside = path.join(os.tmpdir(), `dictum-abs-${randomBytes(6).toString('hex')}.txt`)
  const archive = rawTarBz2(dir, [{ name: outside, data: 'evil' }])
  const error = await rejection(install(dir, archive, entry()))
  t.match(error.message, /outside its folder|absolute path/)
  t.notOk(existsSync(outside))
  assertNothingInstalled(t, dir)
})

t.test('a tar symlink (even one pointing outside) is refused', async (t) => {
  const dir = t.testdir()
  const archive = rawTarBz2(dir, [
    { name: 'top/link', symlink: '/etc' },
    { name: 'top/tokens.txt', data: 'x' },
  ])
  const error = await rejection(install(dir, archive, entry()))
  t.match(error.message, /link or special file/)
  assertNothingInstalled(t, dir)
})

t.test('zip archives', async (t) => {
  t.test(
    'a zip made by zip is unpacked and installed',
    { skip: !hasCommand('zip') && 'zip is not installed' },
    async (t) => {
      const dir = t.testdir()
      const target = await install(
        dir,
        makeZip(dir, 'vosk-model-test', MODEL_FILES),
        entry({ archive: 'zip' }),
      )
      t.equal(readFileSync(path.join(target, 'tokens.txt'), 'utf8'), MODEL_FILES['tokens.txt'])
    },
  )
  t.test('a zip entry with ../ is refused', async (t) => {
    const dir = t.testdir()
    const archive = rawZip([
      { name: 'top/tokens.txt', data: 'x' },
      { name: '../escaped.txt', data: 'evil' },
    ])
    const error = await rejection(install(dir, archive, entry({ archive: 'zip' })))
    t.match(error.message, /outside its folder/)
    t.notOk(existsSync(path.join(dir, 'models', '.staging', 'escaped.txt')))
    assertNothingInstalled(t, dir)
  })
  t.test('a zip symlink is refused', async (t) => {
    const dir = t.testdir()
    const archive = rawZip([
      { name: 'top/link', symlink: '../../../../etc' },
      { name: 'top/tokens.txt', data: 'x' },
    ])
    const error = await rejection(install(dir, archive, entry({ archive: 'zip' })))
    t.match(error.message, /link or special file/)
    assertNothingInstalled(t, dir)
  })
  t.test('a file that is not a zip fails cleanly', async (t) => {
    const dir = t.testdir()
    const error = await rejection(install(dir, Buffer.from('not a zip'), entry({ archive: 'zip' })))
    t.ok(isDictumError(error) && error.code === 'MODEL_INVALID')
    assertNothingInstalled(t, dir)
  })
  t.end()
})

t.test('a single-file model is installed under its catalog file name', async (t) => {
  const dir = t.testdir()
  const vad = entry({
    id: 'vad',
    archive: 'onnx',
    files: ['silero_vad.onnx'],
    engine: 'vad',
    family: 'silero-vad',
  })
  const target = await install(dir, Buffer.from('onnx bytes'), vad)
  t.equal(readFileSync(path.join(target, 'silero_vad.onnx'), 'utf8'), 'onnx bytes')
})

t.test('installing over an existing model replaces it and leaves no old copy', async (t) => {
  const dir = t.testdir()
  await install(dir, makeTarBz2(dir, 'top', { ...MODEL_FILES, 'old-only.txt': 'old' }), entry())
  const target = await install(
    dir,
    makeTarBz2(dir, 'top', { ...MODEL_FILES, 'tokens.txt': 'new tokens' }),
    entry(),
  )
  t.equal(readFileSync(path.join(target, 'tokens.txt'), 'utf8'), 'new tokens')
  t.notOk(existsSync(path.join(target, 'old-only.txt')), 'the old folder is gone, not merged')
  t.same(readdirSync(path.join(dir, 'models')).sort(), ['.staging', 'test-model'])
  t.same(readdirSync(path.join(dir, 'models', '.staging')), [])
})

t.test('a failed re-install keeps the model that was installed', async (t) => {
  const dir = t.testdir()
  await install(dir, makeTarBz2(dir, 'top', MODEL_FILES), entry())
  await rejection(install(dir, makeTarBz2(dir, 'top', { 'tokens.txt': 'x' }), entry()))
  t.equal(
    readFileSync(path.join(dir, 'models', 'test-model', 'encoder.onnx'), 'utf8'),
    MODEL_FILES['encoder.onnx'],
  )
})
