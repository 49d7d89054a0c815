/**
 * The jobs API on the local backend: real app, real SQLite in a temp dir, the fixture echo engine (instant)
 * unless the order of work is the point. Submission (file, folder, glob, upload), results as files and through
 * the result route, idempotency, listing with paging, validation, server-sent events over real HTTP.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import path from 'node:path'
import t from 'tap'
import { build, injectJson, tempDir } from '../helpers/build.ts'
import { listen } from '../helpers/http.ts'
import { buildJobsApp, JFK, type Json, waitFor } from './helpers.ts'

t.test('a job by path runs to completed, with its result in the record and as files', async (t) => {
  const dataDir = tempDir(t)
  const app = await buildJobsApp(t, { dataDir })
  const res = await injectJson(app, 'POST', '/v1/jobs', { path: JFK, formats: ['text', 'srt', 'json'] })
  t.equal(res.status, 201)
  t.match(res.body, { id: /^job_[a-z2-7]{20}$/, state: /queued|active/, input: { kind: 'path', path: JFK } })
  const done = await waitFor(app, res.body.id)
  t.equal(done.state, 'completed')
  t.equal(done.progress, 1)
  t.equal(done.attempts, 1)
  t.match(done.result, { text: /^heard \d+ samples$/, engine: 'fixture-echo' })
  t.same(Object.keys(done.result.files).sort(), ['json', 'srt', 'text'])
  t.equal(done.result.files.text, `${done.id}/jfk.txt`, 'relative to the results dir')
  t.match(done.runner, { worker: 'local', pid: process.pid, engine: 'fixture-echo' })
  const onDisk = path.join(dataDir, 'jobs', done.result.files.text)
  t.equal(readFileSync(onDisk, 'utf8'), `${done.result.text}\n`, 'the text file under <dataDir>/jobs')
  const srt = await app.inject({ method: 'GET', url: `/v1/jobs/${done.id}/result/srt` })
  t.equal(srt.statusCode, 200)
  t.match(srt.headers['content-type'], /application\/x-subrip/)
  t.match(srt.body, /^1\n00:00:00,000 --> /)
  const json = await injectJson(app, 'GET', `/v1/jobs/${done.id}/result/json`)
  t.equal(json.body.text, done.result.text)
  const missing = await injectJson(app, 'GET', `/v1/jobs/${done.id}/result/vtt`)
  t.equal(missing.status, 400)
  t.match(missing.body.error, /no vtt result/)
  t.notOk(JSON.stringify(done).includes(dataDir), 'the record never names the data dir')
})

t.test('GET /v1/jobs/workers: with the local backend, this process, counting its runs', async (t) => {
  const app = await buildJobsApp(t)
  const before = await injectJson(app, 'GET', '/v1/jobs/workers')
  t.equal(before.status, 200)
  t.equal(before.body.backend, 'local')
  t.equal(before.body.count, 1)
  t.match(before.body.items[0], {
    pid: process.pid,
    engine: 'fixture-echo',
    concurrency: app.dictum.configStore.current.jobs.concurrency,
    active: 0,
    done: 0,
    audioSeconds: 0,
    throughput: 0,
  })
  t.equal(before.body.items[0].id, `${before.body.items[0].host}:${process.pid}`)
  const res = await injectJson(app, 'POST', '/v1/jobs', { path: JFK })
  t.equal((await waitFor(app, res.body.id)).state, 'completed')
  const after = await injectJson(app, 'GET', '/v1/jobs/workers')
  const worker = after.body.items[0]
  t.equal(worker.done, 1, 'the run is counted')
  t.equal(worker.audioSeconds, 11, "jfk.wav's 11 s of audio")
  t.ok(worker.throughput > 0, `throughput ${worker.throughput} audio seconds per second`)
  t.equal(worker.startedAt, before.body.items[0].startedAt)
})

t.test('the same idempotency key answers the same job with 200', async (t) => {
  const app = await buildJobsApp(t)
  const first = await injectJson(app, 'POST', '/v1/jobs', { path: JFK, idempotencyKey: 'meeting-7' })
  t.equal(first.status, 201)
  const again = await injectJson(app, 'POST', '/v1/jobs', { path: JFK, idempotencyKey: 'meeting-7' })
  t.equal(again.status, 200)
  t.equal(again.body.id, first.body.id)
  const byHeader = await injectJson(
    app,
    'POST',
    '/v1/jobs',
    { path: JFK },
    { 'idempotency-key': 'meeting-7' },
  )
  t.equal(byHeader.body.id, first.body.id, 'the Idempotency-Key header too')
  const other = await injectJson(app, 'POST', '/v1/jobs', { path: JFK, idempotencyKey: 'meeting-8' })
  t.equal(other.status, 201)
  t.not(other.body.id, first.body.id)
  const list = await injectJson(app, 'GET', '/v1/jobs')
  t.equal(list.body.count, 2, 'two jobs, not four')
})

t.test(
  'a folder and a glob make one job per file, sharing a batch id; the key makes it idempotent',
  async (t) => {
    const folder = tempDir(t)
    for (const name of ['a.wav', 'b.wav']) copyFileSync(JFK, path.join(folder, name))
    writeFileSync(path.join(folder, 'notes.txt'), 'not audio')
    mkdirSync(path.join(folder, 'sub'))
    copyFileSync(JFK, path.join(folder, 'sub', 'c.wav'))
    const app = await buildJobsApp(t)
    const batch = await injectJson(app, 'POST', '/v1/jobs', { path: folder, idempotencyKey: 'k' })
    t.equal(batch.status, 201)
    t.equal(batch.body.count, 2, 'the audio files of the folder, not its subfolders or other files')
    t.same(
      batch.body.jobs.map((j: Json) => path.basename(j.input.path)),
      ['a.wav', 'b.wav'],
    )
    t.ok(batch.body.jobs.every((j: Json) => j.batchId === batch.body.batchId))
    const again = await injectJson(app, 'POST', '/v1/jobs', { path: folder, idempotencyKey: 'k' })
    t.equal(again.status, 200)
    t.same(
      again.body.jobs.map((j: Json) => j.id),
      batch.body.jobs.map((j: Json) => j.id),
    )
    t.equal(again.body.batchId, batch.body.batchId)
    const glob = await injectJson(app, 'POST', '/v1/jobs', { glob: `${folder}/**/*.wav` })
    t.equal(glob.status, 201)
    t.same(
      glob.body.jobs.map((j: Json) => path.relative(folder, j.input.path)),
      ['a.wav', 'b.wav', 'sub/c.wav'],
    )
    for (const j of glob.body.jobs) t.equal((await waitFor(app, j.id)).state, 'completed')
    const none = await injectJson(app, 'POST', '/v1/jobs', { glob: `${folder}/*.flac` })
    t.equal(none.status, 400)
    t.equal(none.body.code, 'JOB_NO_FILES')
  },
)

t.test('an upload is spooled, transcribed, and its spooled file removed', async (t) => {
  const dataDir = tempDir(t)
  const app = await buildJobsApp(t, { dataDir })
  const form = new FormData()
  form.append('file', new Blob([readFileSync(JFK)]), 'talk.wav')
  form.append('formats', 'text,vtt')
  form.append('priority', '5')
  const request = new Request('http://x/', { method: 'POST', body: form })
  const reply = await app.inject({
    method: 'POST',
    url: '/v1/jobs',
    headers: { 'content-type': request.headers.get('content-type') as string },
    payload: Buffer.from(await request.arrayBuffer()),
  })
  const res = { status: reply.statusCode, body: reply.json() }
  t.equal(res.status, 201, JSON.stringify(res.body))
  t.match(res.body, { input: { kind: 'upload', filename: 'talk.wav', file: /^spool\// }, priority: 5 })
  t.same(res.body.formats, ['text', 'vtt'])
  const done = await waitFor(app, res.body.id)
  t.equal(done.state, 'completed')
  t.equal(done.result.files.vtt, `${done.id}/talk.vtt`)
  // Removed right after the record says completed (the record first: a crash between keeps the audio).
  const spool = path.join(dataDir, 'jobs', 'spool')
  for (let i = 0; i < 250 && readdirSync(spool).length > 0; i++) await new Promise((r) => setTimeout(r, 20))
  t.same(readdirSync(spool), [], 'the spooled upload is gone')
})

t.test('bad input is refused with a clear 400 and stores nothing', async (t) => {
  const app = await buildJobsApp(t)
  const cases: Array<[unknown, string, RegExp | string]> = [
    [{ path: 'relative.wav' }, 'AUDIO_PATH_NOT_ABSOLUTE', 'Audio path must be absolute: relative.wav.'],
    [{ path: '/nope/missing.wav' }, 'AUDIO_FILE_NOT_FOUND', 'Audio file not found: /nope/missing.wav.'],
    [{}, 'INVALID_REQUEST', /say what to transcribe/],
    [
      { path: JFK, url: 'http://127.0.0.1/a.wav' },
      'INVALID_REQUEST',
      /one of path, glob and url, not path and url/,
    ],
    [{ url: 'ftp://example/a.wav' }, 'INVALID_REQUEST', /url must be http or https, not ftp/],
    [{ url: 'not a url' }, 'INVALID_REQUEST', /url is not a valid URL/],
    [{ path: JFK, formats: ['docx'] }, 'INVALID_REQUEST', /unknown format "docx"/],
    [{ path: JFK, formats: [] }, 'INVALID_REQUEST', /formats must be a non-empty list/],
    [{ path: JFK, priority: 101 }, 'INVALID_REQUEST', /priority must be an integer from -100 to 100/],
    [{ path: JFK, priority: 1.5 }, 'INVALID_REQUEST', /priority must be an integer/],
    [{ path: JFK, idempotencyKey: '' }, 'INVALID_REQUEST', /idempotencyKey must be a non-empty string/],
    [{ path: JFK, colour: 'blue' }, 'INVALID_REQUEST', /unknown field "colour"/],
    [{ glob: '/tmp/no-wildcard' }, 'INVALID_REQUEST', /glob has no wildcard/],
    [[JFK], 'INVALID_REQUEST', /send a JSON object/],
  ]
  for (const [body, code, message] of cases) {
    const res = await injectJson(app, 'POST', '/v1/jobs', body)
    t.equal(res.status, 400, JSON.stringify(body))
    t.equal(res.body.code, code)
    if (typeof message === 'string') t.equal(res.body.error, message)
    else t.match(res.body.error, message)
  }
  const invalidJson = await injectJson(app, 'POST', '/v1/jobs', '{"path":')
  t.equal(invalidJson.status, 400)
  for (const url of ['/v1/jobs?state=done', '/v1/jobs?cursor=abc']) {
    const res = await injectJson(app, 'GET', url)
    t.equal(res.status, 400, url)
    t.equal(res.body.code, 'INVALID_REQUEST')
  }
  for (const [method, url] of [
    ['GET', '/v1/jobs/job_nope'],
    ['DELETE', '/v1/jobs/job_nope'],
    ['GET', '/v1/jobs/job_nope/events'],
    ['GET', '/v1/jobs/job_nope/result/text'],
  ] as const) {
    const res = await injectJson(app, method, url)
    t.equal(res.status, 404, `${method} ${url}`)
    t.same(res.body, { error: 'Job not found: job_nope.', code: 'JOB_NOT_FOUND' })
  }
  t.equal((await injectJson(app, 'GET', '/v1/jobs')).body.count, 0, 'nothing was stored')
})

t.test('a job whose audio cannot be read fails at once with its reason (no retry)', async (t) => {
  const folder = tempDir(t)
  const bad = path.join(folder, 'bad.wav')
  writeFileSync(bad, 'RIFF not really a wav')
  const app = await buildJobsApp(t)
  const res = await injectJson(app, 'POST', '/v1/jobs', { path: bad })
  const done = await waitFor(app, res.body.id)
  t.equal(done.state, 'failed')
  t.equal(done.attempts, 1, 'bad input is not retried')
  t.equal(done.error.code, 'AUDIO_DECODE_FAILED')
  t.equal(done.result, null)
})

t.test('listing by state, newest first, a page at a time', async (t) => {
  const app = await buildJobsApp(t)
  const ids: string[] = []
  for (let i = 0; i < 5; i++) ids.push((await injectJson(app, 'POST', '/v1/jobs', { path: JFK })).body.id)
  for (const id of ids) await waitFor(app, id)
  const seen: string[] = []
  let cursor: string | null = null
  do {
    const url: string = `/v1/jobs?state=completed&limit=2${cursor ? `&cursor=${cursor}` : ''}`
    const page = await injectJson(app, 'GET', url)
    t.equal(page.status, 200)
    t.ok(page.body.count <= 2)
    seen.push(...page.body.items.map((j: Json) => j.id))
    cursor = page.body.nextCursor
  } while (cursor)
  t.same(seen, [...ids].reverse(), 'every job once, newest first')
  const queued = await injectJson(app, 'GET', '/v1/jobs?state=queued,active')
  t.same(queued.body, { count: 0, items: [], nextCursor: null })
})

t.test('events: the state, progress, then completed, and the stream ends (real HTTP)', async (t) => {
  const app = await buildJobsApp(t, { speech: { engines: { 'fixture-echo': { maxAudioSeconds: 2 } } } })
  const port = await listen(t, app)
  // A 2 s engine window cuts the 11 s clip into six pieces: progress after each.
  const res = await injectJson(app, 'POST', '/v1/jobs', { path: JFK })
  const response = await fetch(`http://127.0.0.1:${port}/v1/jobs/${res.body.id}/events`)
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^text\/event-stream/)
  const text = await response.text() // resolves only when the server ends the stream
  const events = [...text.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map((m) => ({
    type: m[1],
    job: JSON.parse(m[2] as string),
  }))
  t.equal(events.at(-1)?.type, 'completed', 'ends with completed')
  t.equal(events.at(-1)?.job.state, 'completed')
  const progress = events.filter((e) => e.type === 'progress').map((e) => e.job.progress)
  t.ok(progress.length >= 1, `progress events (${progress.join(', ')})`)
  t.same(
    progress,
    [...progress].sort((a, b) => a - b),
    'progress only grows',
  )
  // A finished job's stream: its final state, then the end.
  const late = await (await fetch(`http://127.0.0.1:${port}/v1/jobs/${res.body.id}/events`)).text()
  t.match(late, /^event: completed\ndata: \{/)
  t.equal(late.match(/event:/g)?.length, 1)
})

t.test('a JSON body keeps the small body limit; an upload gets the audio one', async (t) => {
  const app = await buildJobsApp(t, { api: { bodyLimit: 2048, audioBodyLimit: 4096 } })
  const big = await injectJson(app, 'POST', '/v1/jobs', { path: JFK, prompt: 'x'.repeat(3000) })
  t.equal(big.status, 413)
  t.equal(big.body.code, 'REQUEST_TOO_LARGE')
  const form = new FormData()
  form.append('file', new Blob([Buffer.alloc(3000, 1)]), 'a.wav')
  const request = new Request('http://x/', { method: 'POST', body: form })
  const upload = await app.inject({
    method: 'POST',
    url: '/v1/jobs',
    headers: { 'content-type': request.headers.get('content-type') as string },
    payload: Buffer.from(await request.arrayBuffer()),
  })
  t.equal(upload.statusCode, 201, 'over the JSON limit, within the audio one')
  const tooBig = new FormData()
  tooBig.append('file', new Blob([Buffer.alloc(5000, 1)]), 'a.wav')
  const request2 = new Request('http://x/', { method: 'POST', body: tooBig })
  const refused = await app.inject({
    method: 'POST',
    url: '/v1/jobs',
    headers: { 'content-type': request2.headers.get('content-type') as string },
    payload: Buffer.from(await request2.arrayBuffer()),
  })
  t.equal(refused.statusCode, 413)
})

t.test(
  'a job by URL: fetched when it runs (loopback server, allowed); 4xx and over the size limit fail at once',
  async (t) => {
    const audio = readFileSync(JFK)
    const server = createServer((request, response) => {
      if (request.url?.split('?')[0] === '/talk.wav') response.end(audio)
      else {
        response.statusCode = 404
        response.end('no')
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    t.teardown(() => server.close())
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    const dataDir = tempDir(t)
    const app = await buildJobsApp(t, {
      dataDir,
      jobs: { maxUrlBytes: audio.length + 10, urlAllow: ['127.0.0.1'] },
    })
    const ok = await injectJson(app, 'POST', '/v1/jobs', {
      url: `${base}/talk.wav?token=secret`,
      formats: ['text'],
    })
    t.equal(ok.status, 201)
    const done = await waitFor(app, ok.body.id)
    t.equal(done.state, 'completed', JSON.stringify(done.error))
    t.equal(done.result.files.text, `${done.id}/talk.txt`)
    t.ok(done.result.durationSeconds > 10, 'the whole clip')
    t.same(readdirSync(path.join(dataDir, 'jobs', 'spool')), [], 'the download is removed')
    const missing = await waitFor(
      app,
      (await injectJson(app, 'POST', '/v1/jobs', { url: `${base}/gone.wav` })).body.id,
    )
    t.equal(missing.state, 'failed')
    t.equal(missing.attempts, 1)
    t.same(missing.error, {
      code: 'AUDIO_URL_REFUSED',
      message: `Audio URL refused: ${base}/gone.wav answered 404.`,
    })
    const small = await build(t, {
      vad: { enabled: false },
      jobs: { maxUrlBytes: 1024, urlAllow: ['127.0.0.1'] },
    })
    const large = await waitFor(
      small,
      (await injectJson(small, 'POST', '/v1/jobs', { url: `${base}/talk.wav` })).body.id,
    )
    t.equal(large.state, 'failed')
    t.match(large.error, {
      code: 'AUDIO_URL_REFUSED',
      message: /is larger than jobs\.maxUrlBytes \(1024 bytes\)/,
    })
  },
)
