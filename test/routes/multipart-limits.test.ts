/**
 * Multipart uploads are bounded by the audio body limit in all, and carry one file part (issue 16 item 16):
 * `/v1/audio/transcriptions` read a 200 MB chunked form whose extra file parts each stayed under the file
 * limit. Real HTTP on a real listener, chunked bodies (no Content-Length) written by a client that keeps
 * sending until the server answers.
 */
import { readFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import t from 'tap'
import { build } from '../helpers/build.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'
import { listen } from '../helpers/http.ts'

const GO = readFileSync(path.join(audioFixturesDir, 'goforward.wav'))
/** A second file part, small enough that both fit in the limit. */
const SMALL = Buffer.alloc(1000, 1)
const BOUNDARY = 'dictum-test-boundary'
const AUDIO_LIMIT = 128 * 1024
const ROUTES = ['/v1/audio/transcriptions', '/v1/transcribe', '/v1/dictate']

function filePart(name: string, data: Buffer): Buffer {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`
  return Buffer.concat([Buffer.from(head), data, Buffer.from('\r\n')])
}

function fieldPart(name: string, value: string): Buffer {
  return Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
}

const END = Buffer.from(`--${BOUNDARY}--\r\n`)

interface Outcome {
  status: number
  body: string
  headers: string
  /** Body bytes the client had written when the answer came (or the socket closed). */
  sent: number
  /** The server closed the connection after answering (the client asked for keep-alive). */
  closedByServer: boolean
}

/**
 * POSTs a chunked multipart body: `parts` in order, then the closing boundary; or, with `more`, more parts
 * from it until the server answers or `cap` bytes are sent, on a keep-alive connection: the server must close
 * it (or it is given up 10 s after the answer).
 */
function post(
  port: number,
  route: string,
  parts: Buffer[],
  more: (() => Buffer) | null = null,
  cap = 64 * 1024 * 1024,
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let answer = ''
    let sent = 0
    let answered = false
    let sentAtAnswer = 0
    let closedByServer = true
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      if (!answered) {
        sentAtAnswer = sent
        setTimeout(() => {
          closedByServer = socket.destroyed
          socket.destroy()
        }, 10_000).unref()
      }
      answered = true
      answer += chunk
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error)
    })
    socket.on('close', () => {
      const split = answer.indexOf('\r\n\r\n')
      const head = answer.slice(0, split)
      let body = answer.slice(split + 4)
      if (/transfer-encoding: chunked/i.test(head)) body = body.replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/gi, '')
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        body,
        headers: head,
        sent: answered ? sentAtAnswer : sent,
        closedByServer,
      })
    })
    const chunk = (data: Buffer) => {
      sent += data.length
      socket.write(`${data.length.toString(16)}\r\n`)
      socket.write(data)
      return socket.write('\r\n')
    }
    socket.on('connect', async () => {
      socket.write(
        `POST ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
          `Transfer-Encoding: chunked\r\n${more ? '' : 'Connection: close\r\n'}\r\n`,
      )
      for (const part of parts) if (!chunk(part)) await waitDrain(socket)
      if (more) {
        while (!answered && !socket.destroyed && sent < cap) {
          if (!chunk(more()) && !socket.destroyed) await waitDrain(socket)
        }
        if (answered || socket.destroyed) return
      }
      chunk(END)
      socket.write('0\r\n\r\n')
    })
  })
}

function waitDrain(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done)
      socket.off('close', done)
      resolve()
    }
    socket.once('drain', done)
    socket.once('close', done)
  })
}

/** The catalogue code of an answer, in dictum's or OpenAI's shape. */
function code(outcome: Outcome): string {
  const json = JSON.parse(outcome.body)
  return (json.code ?? json.error.code).toUpperCase()
}

t.test('a form with endless extra file parts is refused without reading it', async (t) => {
  const app = await build(t, { api: { audioBodyLimit: AUDIO_LIMIT } })
  const port = await listen(t, app)
  // Each extra part stays under the file limit, as in the attack; 64 MB are offered.
  const extra = filePart('file', Buffer.alloc(AUDIO_LIMIT - 1024, 7))
  for (const route of ROUTES) {
    const outcome = await post(
      port,
      route,
      [fieldPart('model', 'whisper-1'), filePart('file', GO)],
      () => extra,
    )
    t.ok([400, 413].includes(outcome.status), `${route}: refused (${outcome.status})`)
    t.ok(
      outcome.sent < 8 * 1024 * 1024,
      `${route}: answered after ${(outcome.sent / 1e6).toFixed(1)} MB of the 64 MB offered`,
    )
    t.match(outcome.headers, /connection: close/i, `${route}: says the connection closes`)
    t.ok(outcome.closedByServer, `${route}: and closes it instead of reading the rest`)
  }
})

t.test('a second file part is a 400 naming it; one is served', async (t) => {
  const app = await build(t, { api: { audioBodyLimit: AUDIO_LIMIT } })
  const port = await listen(t, app)
  for (const route of ROUTES) {
    const two = await post(port, route, [filePart('file', GO), filePart('file', SMALL)])
    t.equal(two.status, 400, `${route}: two file parts`)
    t.match(two.body, /unexpected file part \\?"file\\?": a form carries one file part/, route)
    t.equal(code(two), 'INVALID_REQUEST', route)
    const other = await post(port, route, [filePart('file', GO), filePart('image', SMALL)])
    t.equal(other.status, 400, `${route}: a file part under another name`)
    t.match(other.body, /unexpected file part \\?"image\\?"/, route)
    const one = await post(port, route, [fieldPart('model', 'whisper-1'), filePart('file', GO)])
    t.equal(one.status, 200, `${route}: one file part is transcribed`)
  }
})

t.test('fields count against the limit too: 413 over it, in a chunked form', async (t) => {
  const app = await build(t, { api: { audioBodyLimit: AUDIO_LIMIT } })
  const port = await listen(t, app)
  // Within the per-field size (256 KB) and count (64), over the form's limit (audio limit + 1 MB) together.
  const fields = Array.from({ length: 6 }, (_, i) => fieldPart(`note${i}`, 'x'.repeat(250_000)))
  for (const route of ROUTES) {
    const outcome = await post(port, route, [filePart('file', GO), ...fields])
    t.equal(outcome.status, 413, `${route}: 1.5 MB of fields`)
    t.equal(code(outcome), 'REQUEST_TOO_LARGE', route)
  }
})
