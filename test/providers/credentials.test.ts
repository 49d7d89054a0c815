/**
 * Credentials inside a `baseUrl` (`http://user:pass@host`) and provider header values never show: not in an
 * error body, not in the stored history, not in the log, not in `dictum config` (issue: they leaked in all
 * four, and `dictum config` printed header values).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { Writable } from 'node:stream'
import pino from 'pino'
import t from 'tap'
import { runCli } from '../cli/run-cli.ts'
import { build, injectJson, tempDir } from '../helpers/build.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'
import { deadUrl } from '../helpers/vendor-servers/provider-harness.ts'

const USER = 'alice-user'
const PASS = 'hunter2-pass-word'
const HEADER = 'hdr-secret-value-42'

function withCredentials(url: string): string {
  const parsed = new URL(url)
  parsed.username = USER
  parsed.password = PASS
  return parsed.href
}

t.test('no error body, history entry or log line shows URL credentials', async (t) => {
  const baseUrl = withCredentials(await deadUrl())
  const lines: string[] = []
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString())
        done()
      },
    }),
  )
  const app = await build(
    t,
    {
      ai: {
        provider: 'openai-compatible',
        providers: { 'openai-compatible': { baseUrl, model: 'x', headers: { 'X-Token': HEADER } } },
      },
    },
    { logger },
  )
  const post = await injectJson(app, 'POST', '/v1/postprocess', { text: 'hello there' })
  t.equal(post.status, 400)
  const dictated = await injectJson(app, 'POST', '/v1/dictate', {
    audioBase64: readFileSync(path.join(audioFixturesDir, 'goforward.wav')).toString('base64'),
  })
  t.equal(dictated.status, 200)
  t.ok(dictated.body.aiProcessingError, 'the provider failed and said so')
  const history = await injectJson(app, 'GET', '/v1/history')
  for (const [what, text] of [
    ['the postprocess error', JSON.stringify(post.body)],
    ['the dictation', JSON.stringify(dictated.body)],
    ['the history', JSON.stringify(history.body)],
    ['the log', lines.join('')],
  ] as const) {
    t.notOk(text.includes(PASS), `${what}: no password`)
    t.notOk(text.includes(`${USER}:`), `${what}: no user:password`)
    t.notOk(text.includes(HEADER), `${what}: no header value`)
  }
})

t.test('dictum config masks URL credentials and header values', async (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, 'config.json')
  writeFileSync(
    file,
    JSON.stringify({
      ai: {
        provider: 'ollama',
        providers: {
          ollama: { baseUrl: `http://${USER}:${PASS}@127.0.0.1:11434`, headers: { 'X-Token': HEADER } },
        },
      },
    }),
  )
  const result = await runCli(['config', '--config', file])
  t.equal(result.code, 0, result.stderr)
  t.notOk(result.stdout.includes(PASS))
  t.notOk(result.stdout.includes(HEADER))
  t.match(result.stdout, /http:\/\/\*\*\*@127\.0\.0\.1:11434/, 'the URL stays readable')
  t.match(result.stdout, /"X-Token": "\*\*\*"/, 'the header name stays, its value is masked')
})
