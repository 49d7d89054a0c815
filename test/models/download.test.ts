import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { isDictumError } from '../../errors/catalogue.ts'
import { redactUrl } from '../../lib/http-client.ts'
import { downloadFile } from '../../models/download.ts'
import type { DownloadProgress } from '../../models/progress-meter.ts'
import { sha256, startServer, type TestServer, waitForSize } from './fixtures.ts'

const FAST_RETRY = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 }

async function withServer(t: { teardown(fn: () => unknown): void }): Promise<TestServer> {
  const server = await startServer()
  t.teardown(() => server.close())
  return server
}

t.test('streams the file, reports growing progress that ends at the total, returns its digest', async (t) => {
  const server = await withServer(t)
  const body = randomBytes(300_000)
  server.files.set('/a.bin', { body })
  const dir = t.testdir()
  const events: DownloadProgress[] = []
  const result = await downloadFile({
    url: server.url('/a.bin'),
    partPath: path.join(dir, 'a.part'),
    expectedSha256: sha256(body),
    label: 'a',
    onProgress: (progress) => events.push(progress),
  })
  t.equal(result.sha256, sha256(body))
  t.equal(result.sizeBytes, body.length)
  t.same(readFileSync(result.path), body)
  t.ok(events.length >= 2, 'at least a first and a last report')
  for (let i = 1; i < events.length; i += 1) {
    t.ok((events[i]?.receivedBytes ?? 0) >= (events[i - 1]?.receivedBytes ?? 0), 'never goes back')
  }
  const last = events[events.length - 1]
  t.equal(last?.receivedBytes, body.length)
  t.equal(last?.totalBytes, body.length)
  t.equal(last?.etaSeconds, 0)
})

t.test('resumes with a Range request after the server drops the connection mid-body', async (t) => {
  const server = await withServer(t)
  const body = randomBytes(500_000)
  const dir = t.testdir()
  const partPath = path.join(dir, 'big.part')
  const beforeDrop = () => waitForSize(partPath, 123_456)
  server.files.set('/big.bin', { body, dropAfter: 123_456, etag: '"v1"', beforeDrop })
  const result = await downloadFile({
    url: server.url('/big.bin'),
    partPath,
    expectedSha256: sha256(body),
    label: 'big',
    retry: FAST_RETRY,
  })
  t.equal(server.requests.length, 2, 'one dropped request, one resumed request')
  t.equal(server.requests[0]?.range, undefined)
  t.equal(server.requests[1]?.range, 'bytes=123456-', 'the second request asked for the rest')
  t.equal(server.requests[1]?.ifRange, '"v1"', 'If-Range carries the ETag of the first response')
  t.equal(result.sha256, sha256(body), 'the digest covers the resumed prefix and the rest')
  t.same(readFileSync(result.path), body)
})

t.test('a download that stalls reports the bytes that arrived before the stall', async (t) => {
  // The server sends a part of the body at once and then holds the connection until the client reports that
  // part: the count lands inside the throttle's interval, so only the meter's trailing report can show it.
  const server = await withServer(t)
  const body = randomBytes(200_000)
  const part = 50_000
  let reported = () => {}
  const partReported = new Promise<void>((resolve) => (reported = resolve))
  server.files.set('/stall.bin', { body, dropAfter: part, beforeDrop: () => partReported })
  const events: DownloadProgress[] = []
  const result = await downloadFile({
    url: server.url('/stall.bin'),
    partPath: path.join(t.testdir(), 'stall.part'),
    expectedSha256: sha256(body),
    label: 'stall',
    retry: FAST_RETRY,
    onProgress: (progress) => {
      events.push(progress)
      if (progress.receivedBytes === part) reported()
    },
  })
  t.ok(
    events.some((e) => e.receivedBytes === part),
    'the part that arrived before the stall is reported while the server holds',
  )
  t.equal(result.sizeBytes, body.length, 'then the download resumes and completes')
})

t.test('a partial file left by an earlier run is resumed, and its prefix is hashed from disk', async (t) => {
  const server = await withServer(t)
  const body = randomBytes(200_000)
  server.files.set('/r.bin', { body })
  const dir = t.testdir()
  const partPath = path.join(dir, 'r.part')
  writeFileSync(partPath, body.subarray(0, 70_000))
  writeFileSync(
    `${partPath}.json`,
    JSON.stringify({ url: server.url('/r.bin'), etag: null, lastModified: null }),
  )
  const result = await downloadFile({
    url: server.url('/r.bin'),
    partPath,
    expectedSha256: sha256(body),
    label: 'r',
  })
  t.equal(server.requests[0]?.range, 'bytes=70000-')
  t.equal(result.sha256, sha256(body))
})

t.test('a server that ignores Range makes the download restart cleanly from zero', async (t) => {
  const server = await withServer(t)
  const body = randomBytes(400_000)
  const dir = t.testdir()
  const partPath = path.join(dir, 'n.part')
  const beforeDrop = () => waitForSize(partPath, 100_000)
  server.files.set('/n.bin', { body, dropAfter: 100_000, ignoreRange: true, beforeDrop })
  const events: DownloadProgress[] = []
  const result = await downloadFile({
    url: server.url('/n.bin'),
    partPath,
    expectedSha256: sha256(body),
    label: 'n',
    retry: FAST_RETRY,
    onProgress: (progress) => events.push(progress),
  })
  t.equal(server.requests[1]?.range, 'bytes=100000-', 'the retry asked for the rest, and got the whole file')
  t.equal(statSync(result.path).size, body.length, 'no duplicated prefix: the file was rewritten from zero')
  t.equal(result.sha256, sha256(body))
  t.equal(events[events.length - 1]?.receivedBytes, body.length)
})

t.test('a checksum mismatch is MODEL_CHECKSUM_MISMATCH and deletes the partial file', async (t) => {
  const server = await withServer(t)
  const body = randomBytes(50_000)
  server.files.set('/bad.bin', { body })
  const dir = t.testdir()
  const partPath = path.join(dir, 'bad.part')
  const error = await downloadFile({
    url: server.url('/bad.bin'),
    partPath,
    expectedSha256: '0'.repeat(64),
    label: 'bad',
  }).catch((caught: unknown) => caught)
  t.ok(isDictumError(error) && error.code === 'MODEL_CHECKSUM_MISMATCH', 'the catalogue error')
  t.match((error as Error).message, sha256(body), 'the message names the digest that arrived')
  t.notOk(existsSync(partPath), 'partial file deleted')
  t.notOk(existsSync(`${partPath}.json`), 'sidecar deleted')
})

t.test('a 404 fails at once with MODEL_DOWNLOAD_FAILED', async (t) => {
  const server = await withServer(t)
  const dir = t.testdir()
  const error = await downloadFile({
    url: `${server.url('/missing.bin')}?token=secret`,
    partPath: path.join(dir, 'm.part'),
    expectedSha256: null,
    label: 'm',
  }).catch((caught: unknown) => caught)
  t.ok(isDictumError(error) && error.code === 'MODEL_DOWNLOAD_FAILED')
  t.match((error as Error).message, /HTTP 404/)
  t.notMatch((error as Error).message, /secret/, 'the query string is not in the message')
  t.equal(server.requests.length, 1, 'no retry for a 404')
})

t.test('server errors are retried, then reported', async (t) => {
  const server = await withServer(t)
  server.files.set('/e.bin', { body: Buffer.alloc(0), status: 503 })
  const dir = t.testdir()
  const error = await downloadFile({
    url: server.url('/e.bin'),
    partPath: path.join(dir, 'e.part'),
    expectedSha256: null,
    label: 'e',
    retry: FAST_RETRY,
  }).catch((caught: unknown) => caught)
  t.ok(isDictumError(error) && error.code === 'MODEL_DOWNLOAD_FAILED')
  t.match((error as Error).message, /HTTP 503/)
  t.equal(server.requests.length, FAST_RETRY.attempts + 1)
})

t.test('an aborted download rejects with the abort reason and keeps its partial file', async (t) => {
  const server = await withServer(t)
  const body = randomBytes(1_000_000)
  const dir = t.testdir()
  const partPath = path.join(dir, 'slow.part')
  const controller = new AbortController()
  const beforeDrop = async () => {
    await waitForSize(partPath, 200_000)
    controller.abort(new Error('stop'))
  }
  server.files.set('/slow.bin', { body, dropAfter: 200_000, beforeDrop })
  const error = await downloadFile({
    url: server.url('/slow.bin'),
    partPath,
    expectedSha256: sha256(body),
    label: 'slow',
    signal: controller.signal,
    retry: { attempts: 100, baseDelayMs: 60_000, maxDelayMs: 60_000 },
  }).catch((caught: unknown) => caught)
  t.match(error, { message: 'stop' })
  t.equal(statSync(partPath).size, 200_000, 'the partial download stays for a later resume')
  t.equal(server.requests.length, 1, 'no retry after the abort')
})

t.test('redactUrl drops credentials and the query', async (t) => {
  t.equal(redactUrl('https://user:pw@example.com/a/b.tar.bz2?sig=1'), 'https://example.com/a/b.tar.bz2')
  t.equal(redactUrl('not a url'), '(invalid URL)')
})
