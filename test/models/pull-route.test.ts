/**
 * POST /v1/models/{id}/pull (issue 14 item 6) over real HTTP, pulling a test model archive from a local HTTP
 * mirror (`models.mirror`) into a temp data dir: one JSON answer, or server-sent events (start, progress
 * through download, verify and extract, done with the installed state; error with the catalogue error);
 * a second pull joins the first (one download); an unknown model is a 404 before any event.
 */
import path from 'node:path'
import { asValue } from 'awilix/browser'
import t, { type Test } from 'tap'
import type { CatalogEntry } from '../../kernel/contracts/catalog.ts'
import { ModelManager } from '../../models/manager.ts'
import { build, tempDir } from '../helpers/build.ts'
import { listen } from '../helpers/http.ts'
import { MODEL_FILES, makeTarBz2, memoryLogger, sha256, startServer, waitForSize } from './fixtures.ts'

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any

interface SseEvent {
  event: string
  data: Json
}

function parseEvents(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n')
      const name = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message'
      const data = lines.find((l) => l.startsWith('data: '))?.slice(6) ?? 'null'
      return { event: name, data: JSON.parse(data) }
    })
}

async function setup(t: Test, options: { token?: string } = {}) {
  const mirror = await startServer()
  t.teardown(() => mirror.close())
  const dataDir = tempDir(t)
  const archive = makeTarBz2(dataDir, 'test-model', MODEL_FILES)
  // Catalog URLs the test cannot reach: every byte must come from the mirror, by file name.
  const entry = (id: string, overrides: Partial<CatalogEntry> = {}): CatalogEntry => ({
    id,
    family: 'nemo-transducer',
    displayName: `Test model ${id}`,
    languages: ['en'],
    url: `https://models.invalid/releases/${id}.tar.bz2`,
    archive: 'tar.bz2',
    sizeBytes: archive.length,
    sizeExact: true,
    sha256: sha256(archive),
    checksumSource: 'computed by the test',
    files: Object.keys(MODEL_FILES),
    customWords: false,
    engine: 'sherpa-onnx',
    license: 'test',
    ...overrides,
  })
  mirror.files.set('/test-model.tar.bz2', { body: archive })
  mirror.files.set('/bad-sum.tar.bz2', { body: archive })
  const garbage = Buffer.from('this is not a bzip2 archive '.repeat(100))
  mirror.files.set('/garbage.tar.bz2', { body: garbage })
  const models = new ModelManager({
    modelsDir: path.join(dataDir, 'models'),
    logger: memoryLogger(),
    catalog: [
      entry('test-model'),
      entry('bad-sum', { sha256: 'f'.repeat(64) }),
      entry('garbage', { sha256: sha256(garbage), sizeBytes: garbage.length }),
    ],
    mirror: mirror.url(''),
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
  })
  const app = await build(
    t,
    { dataDir, ...(options.token ? { api: { token: options.token } } : {}) },
    { services: { models: asValue(models) } },
  )
  const port = await listen(t, app)
  const pull = (id: string, headers: Record<string, string> = {}, query = '') =>
    fetch(`http://127.0.0.1:${port}/v1/models/${id}/pull${query}`, { method: 'POST', headers })
  return { app, port, mirror, archive, pull, dataDir }
}

const SSE = { accept: 'text/event-stream' }

t.test('JSON: the pull installs from the mirror and answers the installed state', async (t) => {
  const { pull, mirror, port, archive } = await setup(t)
  const response = await pull('test-model')
  t.equal(response.status, 200)
  const body = (await response.json()) as Json
  t.match(body, {
    id: 'test-model',
    installed: true,
    path: 'models/test-model',
    joined: false,
    alreadyInstalled: false,
  })
  t.ok(body.sizeOnDisk > 0)
  t.same(
    mirror.requests.map((r) => r.url),
    ['/test-model.tar.bz2'],
    'one request, to the mirror, by file name',
  )
  const list = (await (await fetch(`http://127.0.0.1:${port}/v1/models/test-model`)).json()) as Json
  t.equal(list.installed, true, 'GET /v1/models/{id} sees it installed')

  const again = (await (await pull('test-model')).json()) as Json
  t.match(again, { installed: true, alreadyInstalled: true })
  t.equal(mirror.requests.length, 1, 'an installed model is not pulled again')
  const forced = (await (await pull('test-model', {}, '?force=true')).json()) as Json
  t.match(forced, { installed: true, alreadyInstalled: false })
  t.equal(mirror.requests.length, 2, 'force pulls it again')
  t.equal(archive.length > 0, true)
})

t.test('events: start, progress through download, verify and extract, done', async (t) => {
  const { pull, archive } = await setup(t)
  const response = await pull('test-model', SSE)
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^text\/event-stream/)
  t.equal(response.headers.get('cache-control'), 'no-store')
  const events = parseEvents(await response.text())
  t.same(events[0], {
    event: 'start',
    data: {
      id: 'test-model',
      displayName: 'Test model test-model',
      sizeBytes: archive.length,
      joined: false,
    },
  })
  const last = events[events.length - 1]!
  t.equal(last.event, 'done')
  t.match(last.data, {
    id: 'test-model',
    installed: true,
    path: 'models/test-model',
    alreadyInstalled: false,
  })
  const progress = events.filter((e) => e.event === 'progress').map((e) => e.data)
  t.equal(events.length, progress.length + 2, 'only progress between start and done')
  const phases = progress.map((p) => p.phase).filter((phase, i, all) => all[i - 1] !== phase)
  t.same(phases, ['download', 'verify', 'extract'], 'the phases, in order')
  const downloads = progress.filter((p) => p.phase === 'download')
  t.ok(
    downloads.every((p) => p.totalBytes === archive.length),
    'the total is the archive size',
  )
  t.ok(
    downloads.every((p, i) => i === 0 || p.receivedBytes >= downloads[i - 1].receivedBytes),
    'bytes only grow',
  )
  t.equal(downloads[downloads.length - 1].receivedBytes, archive.length, 'every byte arrived')
  for (const key of ['bytesPerSecond', 'etaSeconds']) t.ok(key in downloads[0], `progress has ${key}`)
})

t.test('a second pull joins the running one: one download, both get progress and done', async (t) => {
  const { pull, mirror, archive, dataDir } = await setup(t)
  let release!: () => void
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  // The mirror sends a first part, then holds the connection until the second client has joined, then drops
  // it: the pull resumes with a Range request. The drop waits for the bytes sent to be on disk too: a
  // connection reset discards what the client has not read yet, and the resume would rightly start over.
  const half = Math.floor(archive.length / 2)
  const partPath = path.join(dataDir, 'models', '.partial', 'test-model.tar.bz2.part')
  const beforeDrop = async () => {
    await Promise.all([held, waitForSize(partPath, half)])
  }
  mirror.files.set('/test-model.tar.bz2', { body: archive, dropAfter: half, beforeDrop })

  const first = await pull('test-model', SSE)
  const reader = first.body!.getReader()
  let firstText = ''
  const decoder = new TextDecoder()
  // Wait until the first client has seen the download start.
  while (!firstText.includes('"phase":"download"')) {
    const chunk = await reader.read()
    if (chunk.done) break
    firstText += decoder.decode(chunk.value, { stream: true })
  }
  const secondResponse = pull('test-model', SSE)
  // The second client's start event says it joined; then it gets the last progress at once.
  const second = await secondResponse
  const secondReader = second.body!.getReader()
  let secondText = ''
  while (!secondText.includes('event: progress')) {
    const chunk = await secondReader.read()
    if (chunk.done) break
    secondText += decoder.decode(chunk.value, { stream: true })
  }
  release()
  for (;;) {
    const chunk = await secondReader.read()
    if (chunk.done) break
    secondText += decoder.decode(chunk.value, { stream: true })
  }
  for (;;) {
    const chunk = await reader.read()
    if (chunk.done) break
    firstText += decoder.decode(chunk.value, { stream: true })
  }
  const a = parseEvents(firstText)
  const b = parseEvents(secondText)
  t.equal(a[0]!.data.joined, false)
  t.equal(b[0]!.data.joined, true, 'the second request joined')
  t.equal(b[1]!.event, 'progress', 'and got the progress so far at once')
  t.equal(b[1]!.data.phase, 'download')
  t.equal(a[a.length - 1]!.event, 'done')
  t.equal(b[b.length - 1]!.event, 'done')
  t.match(b[b.length - 1]!.data, { installed: true, joined: true })
  t.same(
    mirror.requests.map((r) => r.range ?? 'whole'),
    ['whole', `bytes=${half}-`],
    'one download (resumed once after the drop), not two',
  )
})

t.test('failures: a checksum mismatch is an error event or a 502; an unknown model a 404', async (t) => {
  const { pull, dataDir } = await setup(t)
  const events = parseEvents(await (await pull('bad-sum', SSE)).text())
  const error = events[events.length - 1]!
  t.equal(error.event, 'error')
  t.equal(error.data.code, 'MODEL_CHECKSUM_MISMATCH')
  t.equal(error.data.status, 502)
  t.match(
    error.data.error,
    /^Model checksum mismatch: bad-sum: the download from http:\/\/127\.0\.0\.1:\d+\/bad-sum\.tar\.bz2 has SHA-256 [0-9a-f]{64}, expected f{64}\. The file was deleted\.$/,
  )
  t.notOk(error.data.error.includes(dataDir), 'no data dir in the message')

  const json = await pull('bad-sum')
  t.equal(json.status, 502)
  t.match(await json.json(), { code: 'MODEL_CHECKSUM_MISMATCH' })

  // An archive that cannot be unpacked (its checksum matches): 503 MODEL_INVALID, naming no local path.
  const invalid = parseEvents(await (await pull('garbage', SSE)).text()).at(-1)!
  t.equal(invalid.event, 'error')
  t.match(invalid.data, { code: 'MODEL_INVALID', status: 503 })
  t.match(invalid.data.error, /^Model is missing files or corrupt: garbage/)
  t.notOk(invalid.data.error.includes(dataDir), `no data dir in: ${invalid.data.error}`)

  for (const headers of [{}, SSE]) {
    const unknown = await pull('no-such-model', headers)
    t.equal(unknown.status, 404)
    t.match(unknown.headers.get('content-type'), /^application\/json/, 'before any event: a plain JSON error')
    t.same(await unknown.json(), {
      error: 'Model not found: no-such-model. Run `dictum models list` to see the catalog.',
      code: 'MODEL_NOT_FOUND',
    })
  }
})

t.test('the token guards the pull', async (t) => {
  const { pull, mirror } = await setup(t, { token: 'pull-token' })
  t.equal((await pull('test-model', SSE)).status, 401)
  t.equal(mirror.requests.length, 0, 'nothing was downloaded')
  const ok = await pull('test-model', { authorization: 'Bearer pull-token' })
  t.equal(ok.status, 200)
})
