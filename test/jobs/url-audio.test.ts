/**
 * Jobs by URL against real local HTTP servers (issue 28 items 6, 7, 10): no credential or signature of the
 * URL reaches the job, its error, its events or the log; a fetch too slow or redirected to a refused scheme
 * ends; loopback and link-local hosts are refused unless allowed, before any connection.
 */
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { injectJson } from '../helpers/build.ts'
import { freePort } from '../helpers/serve.ts'
import { buildJobsApp, JFK, type Json, waitFor } from './helpers.ts'

type Handler = (request: IncomingMessage, response: ServerResponse) => void

/** A loopback server answering with `handler`, counting connections; closed (connections cut) at teardown. */
async function localServer(t: Test, handler: Handler): Promise<{ base: string; connections: () => number }> {
  const server = createServer(handler)
  let connections = 0
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
  }
}

t.test(
  'a URL with credentials and a signature: neither in the job, its error, its events or the log',
  async (t) => {
    const seen: string[] = []
    const { base } = await localServer(t, (request, response) => {
      seen.push(String(request.headers.authorization))
      response.statusCode = 404
      response.end('no such file')
    })
    const lines: string[] = []
    const app = await buildJobsApp(
      t,
      { jobs: { urlAllow: ['127.0.0.1'] } },
      {
        logger: { level: 'debug', stream: { write: (line: string) => lines.push(line) } },
      },
    )
    const url = `${base.replace('//', '//admin:S3CRET-PW@')}/a.wav?sig=SIGVALUE42&lang=en`
    const submitted = await injectJson(app, 'POST', '/v1/jobs', { url })
    t.equal(submitted.status, 201)
    const masked = `${base.replace('//', '//***@')}/a.wav?sig=***&lang=en`
    t.equal(submitted.body.input.url, masked, 'shown masked')
    const done: Json = await waitFor(app, submitted.body.id)
    t.equal(done.state, 'failed')
    t.equal(done.input.url, masked)
    const events = await app.inject({ method: 'GET', url: `/v1/jobs/${done.id}/events` })
    const list = await injectJson(app, 'GET', '/v1/jobs')
    for (const [what, text] of [
      ['the job', JSON.stringify(done)],
      ['the list', JSON.stringify(list.body)],
      ['the events', events.body],
      ['the log', lines.join('')],
    ] as const) {
      t.notMatch(text, /S3CRET-PW|SIGVALUE42/, `${what} holds neither`)
    }
    t.match(done.error, { code: 'AUDIO_URL_REFUSED', message: /answered 404/ })
    t.same(
      seen,
      [`Basic ${Buffer.from('admin:S3CRET-PW').toString('base64')}`],
      'sent to its own server only',
    )
  },
)

t.test(
  'a fetch slower than jobs.urlMinBytesPerSecond is abandoned, not held until the time limit',
  async (t) => {
    const { base } = await localServer(t, (_request, response) => {
      // Headers at once, then one byte every 50 ms: 20 bytes per second, for 100,000 bytes.
      response.writeHead(200, { 'content-length': '100000', 'content-type': 'audio/wav' })
      const timer = setInterval(() => response.write('a'), 50)
      response.on('close', () => clearInterval(timer))
    })
    const app = await buildJobsApp(t, {
      jobs: { urlAllow: ['127.0.0.1'], urlMinBytesPerSecond: 1000, urlRateWindowMs: 300, attempts: 1 },
    })
    const submitted = await injectJson(app, 'POST', '/v1/jobs', { url: `${base}/slow.wav` })
    const done = await waitFor(app, submitted.body.id)
    t.equal(done.state, 'failed')
    t.same(done.error, {
      code: 'AUDIO_URL_FAILED',
      message: `Could not fetch the audio URL: ${base}/slow.wav sent less than jobs.urlMinBytesPerSecond (1000 bytes per second) over 300 ms.`,
    })
  },
)

t.test('a redirect to a scheme other than http(s) fails at once, not retried', async (t) => {
  const asked: string[] = []
  const { base } = await localServer(t, (request, response) => {
    asked.push(String(request.url))
    const to = request.url === '/ftp.wav' ? 'ftp://files.example/a.wav' : 'file:///etc/passwd'
    response.writeHead(302, { location: to }).end()
  })
  const app = await buildJobsApp(t, { jobs: { urlAllow: ['127.0.0.1'], attempts: 3 } })
  for (const [name, scheme] of [
    ['ftp.wav', 'ftp'],
    ['file.wav', 'file'],
  ]) {
    const done = await waitFor(
      app,
      (await injectJson(app, 'POST', '/v1/jobs', { url: `${base}/${name}` })).body.id,
    )
    t.equal(done.state, 'failed')
    t.equal(done.attempts, 1, 'not tried again')
    t.same(done.error, {
      code: 'AUDIO_URL_REFUSED',
      message: `Audio URL refused: ${base}/${name} redirects to a ${scheme} URL (only http and https).`,
    })
  }
  t.same(asked, ['/ftp.wav', '/file.wav'], 'each asked once')
})

t.test('loopback, link-local and unspecified hosts are refused before any connection', async (t) => {
  const server = await localServer(t, (_request, response) => response.end('secret page'))
  const listening = Number(new URL(server.base).port)
  const app = await buildJobsApp(t)
  const nobody = await freePort()
  const answers = new Map<string, string>()
  for (const port of [listening, nobody]) {
    for (const host of [
      '127.0.0.1',
      '[::1]',
      'localhost',
      '0.0.0.0',
      '169.254.169.254',
      '2130706433',
      '[::ffff:127.0.0.1]',
      '[fe80::1]',
      '127.1.2.3',
    ]) {
      const response = await injectJson(app, 'POST', '/v1/jobs', { url: `http://${host}:${port}/a.wav` })
      t.equal(response.status, 400, `${host}:${port}`)
      t.equal(response.body.code, 'AUDIO_URL_REFUSED')
      t.match(response.body.error, /is not allowed: .*(loopback|link-local)/)
      const same = JSON.stringify(response.body).replaceAll(String(port), 'PORT')
      if (answers.has(host)) t.equal(same, answers.get(host), `${host}: the same answer whatever listens`)
      answers.set(host, same)
    }
  }
  t.equal(server.connections(), 0, 'nothing connected to the listening server')
  t.equal((await injectJson(app, 'GET', '/v1/jobs')).body.count, 0, 'no job was stored')
})

t.test(
  'a name allowed is fetched through the checked lookup; a redirect is checked like the URL',
  async (t) => {
    const audio = readFileSync(JFK)
    const asked: string[] = []
    const server = await localServer(t, (request, response) => {
      asked.push(String(request.url))
      if (request.url === '/talk.wav') response.end(audio)
      else response.writeHead(302, { location: `http://127.0.0.1:${port}/talk.wav` }).end()
    })
    const port = Number(new URL(server.base).port)
    // `localhost` is allowed by name; the address 127.0.0.1 is not allowed by itself.
    const app = await buildJobsApp(t, { jobs: { urlAllow: ['localhost'], attempts: 3 } })
    const fetched = await waitFor(
      app,
      (await injectJson(app, 'POST', '/v1/jobs', { url: `http://localhost:${port}/talk.wav` })).body.id,
    )
    t.equal(fetched.state, 'completed', JSON.stringify(fetched.error))
    const redirected = await waitFor(
      app,
      (await injectJson(app, 'POST', '/v1/jobs', { url: `http://localhost:${port}/moved.wav` })).body.id,
    )
    t.equal(redirected.state, 'failed')
    t.equal(redirected.attempts, 1, 'not tried again')
    t.match(redirected.error, {
      code: 'AUDIO_URL_REFUSED',
      message: `Audio URL refused: http://127.0.0.1:${port}/talk.wav is not allowed: 127.0.0.1 is a loopback, link-local or unspecified address (allow it in jobs.urlAllow).`,
    })
    t.same(asked, ['/talk.wav', '/moved.wav'], 'the redirect target was never asked')
  },
)
