import { spawnSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { isDictumError } from '../../errors/catalogue.ts'
import type { CatalogEntry } from '../../kernel/contracts/catalog.ts'
import { ModelManager } from '../../models/manager.ts'
import type { DownloadProgress } from '../../models/progress-meter.ts'
import {
  MODEL_FILES,
  makeTarBz2,
  memoryLogger,
  rawTarBz2,
  sha256,
  startServer,
  type TestServer,
  testEntry,
  waitForSize,
} from './fixtures.ts'

const FAST_RETRY = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 }

interface Setup {
  dir: string
  server: TestServer
  archive: Buffer
  entry: CatalogEntry
  manager: ModelManager
}

async function setup(
  t: { testdir(): string; teardown(fn: () => unknown): void },
  overrides: Partial<CatalogEntry> = {},
  mirror?: string,
): Promise<Setup> {
  const dir = t.testdir()
  const server = await startServer()
  t.teardown(() => server.close())
  const archive = makeTarBz2(dir, 'sherpa-onnx-test', MODEL_FILES)
  const entry = testEntry(server, 'test-model', 'tar.bz2', archive, overrides)
  server.files.set('/test-model.tar.bz2', { body: archive })
  const manager = new ModelManager({
    modelsDir: path.join(dir, 'models'),
    logger: memoryLogger(),
    catalog: [entry],
    retry: FAST_RETRY,
    mirror: mirror ?? null,
  })
  t.teardown(() => manager.close())
  return { dir, server, archive, entry, manager }
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  )
  if (!(error instanceof Error)) throw new Error('expected a rejection')
  return error
}

function partialFiles(dir: string): string[] {
  const partial = path.join(dir, 'models', '.partial')
  return existsSync(partial) ? readdirSync(partial) : []
}

t.test(
  'pull downloads, verifies and installs; list, isInstalled, verify and the manifest agree',
  async (t) => {
    const { dir, manager, archive, server } = await setup(t)
    t.notOk(await manager.isInstalled('test-model'))
    const events: DownloadProgress[] = []
    const folder = await manager.pull('test-model', { onProgress: (progress) => events.push(progress) })
    t.equal(folder, path.join(dir, 'models', 'test-model'))
    t.equal(readFileSync(path.join(folder, 'tokens.txt'), 'utf8'), MODEL_FILES['tokens.txt'])
    t.equal(server.requests.length, 1)
    t.equal(events[events.length - 1]?.receivedBytes, archive.length, 'progress ends at the archive size')
    t.ok(await manager.isInstalled('test-model'))
    t.same(await manager.verify('test-model'), { ok: true })
    const [item] = await manager.list()
    t.equal(item?.installed, true)
    t.equal(item?.path, folder)
    t.ok((item?.sizeOnDisk ?? 0) > 0, 'size on disk is measured')
    const manifest = await manager.readManifest('test-model')
    t.equal(manifest?.sha256, sha256(archive))
    t.equal(manifest?.sha256Verified, true)
    t.same(partialFiles(dir), [], 'the download is gone once installed')
  },
)

t.test('a checksum mismatch installs nothing and leaves no partial download', async (t) => {
  const { dir, manager } = await setup(t, { sha256: 'f'.repeat(64) })
  const error = await rejection(manager.pull('test-model'))
  t.ok(isDictumError(error) && error.code === 'MODEL_CHECKSUM_MISMATCH')
  t.notOk(existsSync(path.join(dir, 'models', 'test-model')))
  t.same(partialFiles(dir), [])
})

t.test(
  'a catalog entry without a digest is installed and the digest recorded (trust on first use)',
  async (t) => {
    const { manager, archive } = await setup(t, { sha256: null })
    await manager.pull('test-model')
    const manifest = await manager.readManifest('test-model')
    t.equal(manifest?.sha256, sha256(archive))
    t.equal(manifest?.sha256Verified, false)
  },
)

t.test('--from a local archive installs without touching the network', async (t) => {
  const { dir, manager, archive, server } = await setup(t)
  const file = path.join(dir, 'offline.tar.bz2')
  writeFileSync(file, archive)
  const events: DownloadProgress[] = []
  await manager.pull('test-model', { from: file, onProgress: (progress) => events.push(progress) })
  t.ok(await manager.isInstalled('test-model'))
  t.equal(server.requests.length, 0)
  t.equal(events[events.length - 1]?.receivedBytes, archive.length)
  t.equal((await manager.readManifest('test-model'))?.source, 'file')
  t.ok(existsSync(file), 'the user’s archive is left where it was')
})

t.test('--from a local archive with the wrong digest is refused', async (t) => {
  const { dir, manager } = await setup(t)
  const file = path.join(dir, 'other.tar.bz2')
  writeFileSync(file, makeTarBz2(dir, 'x', { ...MODEL_FILES, 'extra.txt': 'changed' }))
  const error = await rejection(manager.pull('test-model', { from: file }))
  t.ok(isDictumError(error) && error.code === 'MODEL_CHECKSUM_MISMATCH')
  t.notOk(existsSync(path.join(dir, 'models', 'test-model')))
  t.ok(existsSync(file))
})

t.test('--from a mirror URL downloads from the mirror, with the same checksum check', async (t) => {
  const { manager, archive, server } = await setup(t)
  server.files.set('/mirror/a.tar.bz2', { body: archive })
  await manager.pull('test-model', { from: server.url('/mirror/a.tar.bz2') })
  t.same(
    server.requests.map((request) => request.url),
    ['/mirror/a.tar.bz2'],
  )
  t.ok(await manager.isInstalled('test-model'))
})

t.test('models.mirror serves the catalog archives by file name', async (t) => {
  const dir = t.testdir()
  const server = await startServer()
  t.teardown(() => server.close())
  const archive = makeTarBz2(dir, 'top', MODEL_FILES)
  server.files.set('/models-mirror/test-model.tar.bz2', { body: archive })
  const entry = testEntry(server, 'test-model', 'tar.bz2', archive, {
    url: 'https://github.com/x/test-model.tar.bz2',
  })
  const manager = new ModelManager({
    modelsDir: path.join(dir, 'models'),
    logger: memoryLogger(),
    catalog: [entry],
    mirror: `${server.url('/models-mirror')}/`,
  })
  t.equal(manager.sourceOf('test-model'), server.url('/models-mirror/test-model.tar.bz2'))
  await manager.pull('test-model')
  t.ok(await manager.isInstalled('test-model'))
})

t.test('remove deletes an installed model and says false when there is none', async (t) => {
  const { dir, manager } = await setup(t)
  await manager.pull('test-model')
  t.equal(await manager.remove('test-model'), true)
  t.notOk(existsSync(path.join(dir, 'models', 'test-model')))
  t.notOk(await manager.isInstalled('test-model'))
  t.equal(await manager.remove('test-model'), false)
})

t.test('concurrent pulls of one model share one download', async (t) => {
  const { manager, server } = await setup(t)
  const first: DownloadProgress[] = []
  const second: DownloadProgress[] = []
  const [a, b] = await Promise.all([
    manager.pull('test-model', { onProgress: (progress) => first.push(progress) }),
    manager.pull('test-model', { onProgress: (progress) => second.push(progress) }),
  ])
  t.equal(a, b)
  t.equal(server.requests.length, 1, 'the server saw one request')
  t.ok(first.length > 0 && second.length > 0, 'both callers got progress')
})

t.test('an aborted pull leaves nothing in <id>/ and the next pull resumes the download', async (t) => {
  const { dir, manager, archive, server } = await setup(t)
  const partPath = manager.partPath(manager.get('test-model'))
  const controller = new AbortController()
  const half = Math.floor(archive.length / 2)
  const beforeDrop = async () => {
    await waitForSize(partPath, half)
    controller.abort(new Error('user pressed Ctrl-C'))
  }
  server.files.set('/test-model.tar.bz2', { body: archive, dropAfter: half, beforeDrop })
  const error = await rejection(manager.pull('test-model', { signal: controller.signal }))
  t.equal(error.message, 'user pressed Ctrl-C')
  t.notOk(existsSync(path.join(dir, 'models', 'test-model')), 'nothing installed')
  t.ok(partialFiles(dir).includes('test-model.tar.bz2.part'), 'the partial download is kept')
  t.notOk(
    partialFiles(dir).some((name) => name.endsWith('.lock')),
    'the pull lock is released',
  )
  await manager.pull('test-model')
  t.equal(server.requests[server.requests.length - 1]?.range, `bytes=${half}-`, 'the second pull resumed')
  t.same(await manager.verify('test-model'), { ok: true })
})

t.test('one of two callers leaving does not stop the shared pull', async (t) => {
  const { manager } = await setup(t)
  const leaving = new AbortController()
  const staying = manager.pull('test-model')
  const left = manager.pull('test-model', { signal: leaving.signal })
  leaving.abort(new Error('bye'))
  t.equal((await rejection(left)).message, 'bye')
  t.equal(await staying, manager.pathOf('test-model'))
})

t.test('a pull that cannot fit on the disk fails before downloading anything', async (t) => {
  const { manager, server } = await setup(t, { sizeBytes: 10 ** 16 })
  const error = (await rejection(manager.pull('test-model'))) as Error & { code: string }
  t.equal(error.code, 'MODEL_DOWNLOAD_FAILED')
  t.match(error.message, /not enough disk space in the models folder/)
  // models.autoPull sends this message over HTTP: it must not name the data directory.
  t.notOk(error.message.includes(manager.modelsDir), 'the folder is not named')
  t.equal(server.requests.length, 0)
})

t.test('an unknown id is MODEL_NOT_FOUND everywhere', async (t) => {
  const { manager } = await setup(t)
  const error = await rejection(manager.pull('nope'))
  t.ok(isDictumError(error) && error.code === 'MODEL_NOT_FOUND')
  t.throws(() => manager.get('nope'), { code: 'MODEL_NOT_FOUND' })
  await t.rejects(manager.remove('nope'), { code: 'MODEL_NOT_FOUND' })
  await t.rejects(manager.verify('nope'), { code: 'MODEL_NOT_FOUND' })
})

t.test('an archive with path traversal pulled from the server installs nothing', async (t) => {
  const { dir, manager, server } = await setup(t, { sha256: null })
  const evil = rawTarBz2(dir, [{ name: 'top/../../evil.txt', data: 'x' }])
  server.files.set('/test-model.tar.bz2', { body: evil })
  await t.rejects(manager.pull('test-model'), { code: 'MODEL_INVALID' })
  t.notOk(existsSync(path.join(dir, 'models', 'test-model')))
  t.notOk(existsSync(path.join(dir, 'evil.txt')))
})

t.test('verify reports missing and changed files', async (t) => {
  const { manager } = await setup(t)
  t.same(await manager.verify('test-model'), { ok: false, problems: ['test-model is not installed'] })
  const folder = await manager.pull('test-model')
  truncateSync(path.join(folder, 'encoder.onnx'), 10)
  writeFileSync(path.join(folder, 'decoder.onnx'), '')
  const result = await manager.verify('test-model')
  t.equal(result.ok, false)
  t.match(!result.ok && result.problems.join('\n'), /encoder\.onnx has 10 bytes, it had \d+ when installed/)
  t.equal(await manager.isInstalled('test-model'), true, 'files still exist')
})

t.test(
  'ensure: installed → path; missing → MODEL_NOT_INSTALLED with the fix, or a pull with autoPull',
  async (t) => {
    const { manager } = await setup(t)
    const error = await rejection(manager.ensure('test-model', { autoPull: false }))
    t.ok(isDictumError(error) && error.code === 'MODEL_NOT_INSTALLED')
    t.same(isDictumError(error) && error.extra, { fix: 'dictum models pull test-model' })
    const folder = await manager.ensure('test-model', { autoPull: true })
    t.equal(folder, manager.pathOf('test-model'))
    t.equal(await manager.ensure('test-model', { autoPull: false }), folder)
  },
)

t.test('cleanupStale removes crash leftovers and keeps resumable downloads', async (t) => {
  const { dir, manager } = await setup(t)
  const models = path.join(dir, 'models')
  mkdirSync(path.join(models, '.staging', 'test-model+abc', 'unpacked'), { recursive: true })
  mkdirSync(path.join(models, '.partial'), { recursive: true })
  const recent = path.join(models, '.partial', 'test-model.tar.bz2.part')
  writeFileSync(recent, 'half')
  writeFileSync(path.join(models, '.partial', 'gone-model.zip.part'), 'x')
  const dead = spawnSync(process.execPath, ['-e', '0']).pid
  writeFileSync(path.join(models, '.partial', 'other.lock'), String(dead))
  const removed = await manager.cleanupStale()
  t.same(readdirSync(path.join(models, '.staging')), [], 'staging emptied')
  t.same(
    readdirSync(path.join(models, '.partial')),
    ['test-model.tar.bz2.part'],
    'only the resumable part kept',
  )
  t.equal(removed.length, 3)
  const old = new Date(Date.now() - 8 * 24 * 3600 * 1000)
  utimesSync(recent, old, old)
  await manager.cleanupStale()
  t.same(readdirSync(path.join(models, '.partial')), [], 'a week-old partial download is removed')
})
